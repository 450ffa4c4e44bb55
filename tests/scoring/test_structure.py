from icae_env.scoring.structure import javascript_names, measure_structure, python_names


def test_python_names():
    source = "class A:\n    def f(self): pass\n    async def g(self): pass\n\ndef top(): pass\n"
    assert python_names(source, "mod") == ({"A"}, {"A.f", "A.g", "mod.top"})
    assert python_names("def (", "mod") == (set(), set())


def test_javascript_names():
    source = (
        "export class Parser extends Base {\n  constructor(x) { this.x = x; }\n  static parse(text) {\n"
        "    if (text) { return 1; }\n  }\n  async load() {}\n}\n"
        "function helper(a) { return a; }\nconst arrow = (a) => a;\nmodule.exports = { helper };\n"
    )
    classes, methods = javascript_names(source, "lib")
    assert classes == {"Parser"}
    assert methods == {"Parser.parse", "Parser.load", "lib.helper", "lib.arrow"}


def test_measure_against_golden(tmp_path):
    golden, work = tmp_path / "golden", tmp_path / "work"
    for root in (golden, work):
        (root / "rcb_tests").mkdir(parents=True)
        (root / "rcb_tests" / "test.sh").write_text("echo\n" * 50)
        (root / "node_modules").mkdir()
        (root / "node_modules" / "dep.js").write_text("x\n" * 100)
    (golden / "core.py").write_text("class Core:\n    def run(self):\n        return 1\n\n\ndef main():\n    pass\n")
    (golden / "adapter.py").write_text("import core\n")
    (work / "core.py").write_text("class Core:\n    def go(self):\n        return 1\n")
    report = measure_structure(work, golden)
    assert (report.files, report.loc, report.golden_files, report.golden_loc) == (1, 3, 2, 6)
    assert (report.file_ratio, report.loc_ratio, report.class_sim) == (0.5, 0.5, 1.0)
    assert report.method_sim == 0.0
    assert measure_structure(work).file_ratio is None
