"""Language images: the language -> image table, the build command, and a tiny program per language in its image.

The docker tests build an absent image through ``icae-env images build LANG`` (slow: minutes per image) and reuse
present ones. Each program reads JSON on stdin and prints ``hello icae 6``; it is compiled and run in the docker
sandbox with no network. They skip (with a reason) only where no Docker engine answers.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from icae_env.cli import main
from icae_env.errors import SandboxError
from icae_env.sandbox import BACKENDS, image_recipes, make_sandbox
from icae_env.sandbox import images as images_module
from icae_env.sandbox.image_build import SANDBOX_PATH, image_labels, load_archive, parse_versions, remove_image
from icae_env.sandbox.image_recipes import (
    TRIXIE_BASE_IMAGE,
    VERSION_MARK,
    dockerfile,
    recipe_digest,
    recipe_for,
    version_script,
)
from icae_env.sandbox.images import (
    BASE_IMAGE,
    DEFAULT_IMAGES,
    RECIPES,
    build_image,
    image_exists,
    image_for,
    image_rows,
    load_image_map,
    missing_image_hint,
    resolve_recipe,
)
from icae_env.tasks.runtimes import RUNTIMES, normalise_language


def _engine_answers() -> bool:
    if shutil.which("docker") is None or "docker" not in BACKENDS:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0


docker_here = pytest.mark.skipif(not _engine_answers(), reason="no Docker engine answers here")
STDIN = '{"name": "icae", "values": [1, 2, 3]}'
EXPECTED = "hello icae 6\n"

EXPECTED_IMAGES = {
    "python": "icae-env/python:bookworm",
    "javascript": "icae-env/node:trixie",
    "typescript": "icae-env/node:trixie",
    "java": "icae-env/java:bookworm",
    "php": "icae-env/php:bookworm",
    "cpp": "icae-env/cpp:bookworm",
    "c++": "icae-env/cpp:bookworm",
    "go": "icae-env/go:bookworm",
    "ruby": "icae-env/ruby:bookworm",
    "rust": "icae-env/rust:bookworm",
    "kotlin": "icae-env/kotlin:1.9.25",
    "dart": "dart:3.5",
    "csharp": "mcr.microsoft.com/dotnet/sdk:8.0",
    "C#": "mcr.microsoft.com/dotnet/sdk:8.0",
}

# language -> (files, build command, run command); every program prints EXPECTED for STDIN.
PROGRAMS: dict[str, tuple[dict[str, str], str, str]] = {
    "python": (
        {"main.py": "import json, sys\nd = json.load(sys.stdin)\nprint(f\"hello {d['name']} {sum(d['values'])}\")\n"},
        "python3 -m py_compile main.py",
        "python3 main.py",
    ),
    "javascript": (
        {
            "main.js": 'const d = JSON.parse(require("fs").readFileSync(0, "utf8"));\n'
            "console.log(`hello ${d.name} ${d.values.reduce((a, b) => a + b, 0)}`);\n"
        },
        "node --check main.js",
        "node main.js",
    ),
    "typescript": (
        {
            "main.ts": "declare const require: (m: string) => { readFileSync(fd: number, enc: string): string };\n"
            "interface Input { name: string; values: number[] }\n"
            'const d: Input = JSON.parse(require("fs").readFileSync(0, "utf8"));\n'
            "const total: number = d.values.reduce((a: number, b: number) => a + b, 0);\n"
            "console.log(`hello ${d.name} ${total}`);\n"
        },
        "tsc --strict --outDir out main.ts",
        "node out/main.js",
    ),
    "java": (
        {
            "pom.xml": '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
            "<groupId>icae</groupId><artifactId>hello</artifactId><version>1</version></project>\n",
            "Main.java": "import java.util.regex.*;\npublic class Main {\n"
            "  public static void main(String[] args) throws Exception {\n"
            '    String s = new String(System.in.readAllBytes(), "UTF-8");\n'
            '    Matcher n = Pattern.compile("\\"name\\"\\\\s*:\\\\s*\\"([^\\"]*)\\"").matcher(s); n.find();\n'
            '    Matcher v = Pattern.compile("\\\\[([^\\\\]]*)\\\\]").matcher(s); v.find();\n'
            "    int sum = 0;\n"
            '    for (String x : v.group(1).split(",")) sum += Integer.parseInt(x.trim());\n'
            '    System.out.println("hello " + n.group(1) + " " + sum);\n  }\n}\n',
        },
        "javac -d out Main.java && mvn -o -B -q validate",
        "java -cp out Main",
    ),
    "php": (
        {
            "main.php": "<?php\n$d = json_decode(stream_get_contents(STDIN), true);\n"
            'echo "hello " . $d["name"] . " " . array_sum($d["values"]) . "\\n";\n'
        },
        "php -l main.php",
        "php main.php",
    ),
    "c++": (
        {
            "main.cpp": "#include <iostream>\n#include <iterator>\n#include <regex>\n#include <string>\n"
            "int main() {\n  std::string s((std::istreambuf_iterator<char>(std::cin)), {});\n  std::smatch m;\n"
            '  std::regex_search(s, m, std::regex("\\"name\\"\\\\s*:\\\\s*\\"([^\\"]*)\\""));\n'
            "  std::string name = m[1];\n"
            '  std::regex_search(s, m, std::regex("\\\\[([^\\\\]]*)\\\\]"));\n'
            '  std::string list = m[1];\n  int sum = 0;\n  std::regex number("-?[0-9]+");\n'
            "  for (std::sregex_iterator i(list.begin(), list.end(), number), e; i != e; ++i)\n"
            "    sum += std::stoi(i->str());\n"
            '  std::cout << "hello " << name << " " << sum << "\\n";\n}\n',
            "Makefile": "hello: main.cpp\n\tg++ -std=c++17 -O0 -o hello main.cpp\n",
        },
        "make",
        "./hello",
    ),
    "go": (
        {
            "go.mod": "module hello\n\ngo 1.22\n",
            "main.go": 'package main\n\nimport (\n\t"encoding/json"\n\t"fmt"\n\t"os"\n)\n\n'
            "func main() {\n\tvar d struct {\n\t\tName   string\n\t\tValues []int\n\t}\n"
            "\tif err := json.NewDecoder(os.Stdin).Decode(&d); err != nil {\n\t\tpanic(err)\n\t}\n"
            "\tsum := 0\n\tfor i := range len(d.Values) {\n\t\tsum += d.Values[i]\n\t}\n"
            '\tfmt.Printf("hello %s %d\\n", d.Name, sum)\n}\n',
        },
        "go build -o hello .",
        "./hello",
    ),
    "ruby": (
        {"main.rb": 'require "json"\nd = JSON.parse($stdin.read)\nputs "hello #{d["name"]} #{d["values"].sum}"\n'},
        "ruby -c main.rb",
        "ruby main.rb",
    ),
    "rust": (
        {
            "Cargo.toml": '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
            "src/main.rs": "use std::io::Read;\n\nfn main() {\n    let mut s = String::new();\n"
            "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
            '    let name = s.split("\\"name\\"").nth(1).unwrap().split(\'"\').nth(1).unwrap();\n'
            "    let list = &s[s.find('[').unwrap() + 1..s.find(']').unwrap()];\n"
            "    let sum: i64 = list.split(',').map(|x| x.trim().parse::<i64>().unwrap()).sum();\n"
            '    println!("hello {name} {sum}");\n}\n',
        },
        "cargo build --offline",
        "./target/debug/hello",
    ),
}


@pytest.mark.filterwarnings("ignore:.* is absent .* uses the base image")
def test_every_icae_language_maps_to_its_image():
    table = load_image_map(None)
    for language, image in EXPECTED_IMAGES.items():
        expected = image if language.lower() not in ("python", "javascript") or image_exists(image) else BASE_IMAGE
        assert image_for(language, table) == expected, language
    assert image_for(None) == BASE_IMAGE


def test_unknown_language_falls_back_to_the_base_with_a_warning():
    with pytest.warns(UserWarning, match="no image for language 'haskell'; using the base image"):
        assert image_for("haskell") == BASE_IMAGE


def test_python_uses_the_base_while_its_image_is_absent(monkeypatch):
    monkeypatch.setitem(DEFAULT_IMAGES, "python", "icae-env/absent-for-test:never")
    with pytest.warns(UserWarning, match="absent-for-test:never is absent .*python uses the base image"):
        assert image_for("python") == BASE_IMAGE


def test_image_map_keys_are_normalised(tmp_path: Path):
    path = tmp_path / "images.yaml"
    path.write_text("C++: gcc:12\ncsharp: my/dotnet:8\nJS: node:20\n", encoding="utf-8")
    table = load_image_map(path)
    assert (table["c++"], table["c#"], table["javascript"]) == ("gcc:12", "my/dotnet:8", "node:20")
    assert image_for("cpp", table) == "gcc:12" and table["java"] == "icae-env/java:bookworm"


def test_recipes_resolve_by_language_key_or_image():
    assert resolve_recipe("ts").key == resolve_recipe("javascript").key == "node"
    assert resolve_recipe("cpp").key == resolve_recipe("C++").key == "cpp"
    assert resolve_recipe("icae-env/go:bookworm").key == "go" and resolve_recipe("base").image == BASE_IMAGE
    with pytest.raises(
        ValueError,
        match="no image recipe for 'haskell'; known languages: c#, c\\+\\+, dart, .*; base images: base, base-trixie$",
    ):
        resolve_recipe("haskell")


def test_go_dockerfile_uses_backports_updates_and_one_run():
    recipe = recipe_for("go")
    assert recipe is not None
    text = dockerfile(recipe)
    assert text.startswith(f"FROM {BASE_IMAGE}\n") and text.count("\nRUN ") == 1
    assert "bookworm-backports main" in text and "golang-1.22-go" in text and "ENV GOTOOLCHAIN=local" in text
    assert "debian-security bookworm-security main" in text and "bookworm-updates main" in text


def test_node_is_debian_13s_node_on_the_trixie_base():
    node = resolve_recipe("typescript")
    text = dockerfile(node)
    assert node.image == "icae-env/node:trixie" and text.startswith(f"FROM {TRIXIE_BASE_IMAGE}\n")
    assert "trixie-security main" in text and "bookworm" not in text
    assert "nodejs npm node-typescript python3" in text  # python3 runs the revision apps' relay
    base = resolve_recipe("base-trixie")
    assert (base.source, base.suite, base.languages) == ("debootstrap", "trixie", ())


def test_rust_uses_the_web_toolchain_not_plain_rustc():
    rust = resolve_recipe("rust")
    assert {"rustc-web", "cargo-web"} <= set(rust.packages) and "rustc" not in rust.packages
    assert "apt-get install -y --no-install-recommends rustc-web cargo-web" in dockerfile(rust)


def test_the_recipe_digest_follows_what_an_image_is_built_from():
    go = resolve_recipe("go")
    assert recipe_digest(go) == recipe_digest(dataclasses.replace(go, note="other words"))
    assert recipe_digest(go) != recipe_digest(dataclasses.replace(go, packages=("golang-1.23-go",)))
    base = resolve_recipe("base")
    assert recipe_digest(base) != recipe_digest(dataclasses.replace(base, suite="trixie"))
    assert len({recipe_digest(r) for r in RECIPES if r.source in ("debian", "debootstrap")}) == 10


def test_only_debian_recipes_have_a_dockerfile():
    with pytest.raises(ValueError, match="base: a debootstrap recipe has no Dockerfile"):
        dockerfile(resolve_recipe("base"))
    with pytest.raises(ValueError, match="kotlin: a archive recipe has no Dockerfile"):
        dockerfile(resolve_recipe("kotlin"))


def test_every_recipe_language_is_canonical_and_served_once():
    languages = [language for recipe in RECIPES for language in recipe.languages]
    assert len(languages) == len(set(languages))
    assert {normalise_language(language) for language in languages} == set(languages)
    assert set(languages) == set(RUNTIMES)


def _version_output(blocks: list[tuple[str, str, int]]) -> str:
    return "".join(f"\n{VERSION_MARK} {tool}\n{text}\n{VERSION_MARK}-rc {rc}\n" for tool, text, rc in blocks)


def test_version_blocks_are_parsed_with_colour_codes_stripped():
    java = resolve_recipe("java")
    script = version_script(java)
    assert script.count(f"{VERSION_MARK} ") == 3 and "mvn --version" in script
    out = _version_output(
        [
            ("java", "openjdk 17.0.19 2026-04-21\nOpenJDK Runtime", 0),
            ("javac", "javac 17.0.19", 0),
            ("mvn", "\x1b[1mApache Maven 3.8.7\x1b[m\nMaven home: /usr/share/maven", 0),
        ]
    )
    versions = parse_versions(java, out, strict=True)
    assert versions == {"java": "openjdk 17.0.19 2026-04-21", "javac": "javac 17.0.19", "mvn": "Apache Maven 3.8.7"}


def test_a_missing_tool_fails_a_strict_version_record():
    java = resolve_recipe("java")
    out = _version_output([("java", "openjdk 17", 0), ("javac", "sh: 1: javac: not found", 127)])
    with pytest.raises(SandboxError, match="^java: `javac --version` failed: sh: 1: javac: not found$"):
        parse_versions(java, out, strict=True)
    assert parse_versions(java, out, strict=False)["javac"] == "unavailable (sh: 1: javac: not found)"
    with pytest.raises(SandboxError, match="^java: no version output from javac, mvn$"):
        parse_versions(java, _version_output([("java", "openjdk 17", 0)]), strict=True)


@pytest.mark.parametrize("language", ["dart", "csharp"])
def test_registry_languages_explain_why_they_cannot_be_built(language: str, capsys):
    status = main(["images", "build", language])
    lines = capsys.readouterr().out.splitlines()
    image = EXPECTED_IMAGES[language]
    assert len(lines) == 1 and "cannot be built locally (Debian packages no " in lines[0]
    assert f"the image map points {resolve_recipe(language).languages[0]} to {image} (docker pull {image}" in lines[0]
    assert status == (0 if image_exists(image) else 1)


def test_registry_message_names_the_mapped_image(tmp_path: Path, capsys):
    path = tmp_path / "images.yaml"
    path.write_text("csharp: local/dotnet:8\n", encoding="utf-8")
    main(["images", "build", "c#", "--image-map", str(path)])
    out = capsys.readouterr().out
    assert out.startswith("csharp: cannot be built locally (Debian packages no .NET SDK); ")
    assert "the image map points c# to local/dotnet:8;" in out and "docker pull" not in out
    with pytest.raises(ValueError, match="^dart: cannot be built locally .* points dart to dart:3.5 "):
        build_image("dart")


def test_a_missing_image_hint_says_how_to_get_it():
    assert missing_image_hint("icae-env/node:trixie") == "icae-env images build node"
    assert missing_image_hint(BASE_IMAGE) == "icae-env images build base"
    assert missing_image_hint("icae-env/kotlin:1.9.25").startswith("ICAE's image archive: icae-env icae fetch")
    assert missing_image_hint("dart:3.5").startswith("dart: cannot be built locally (Debian packages no Dart SDK)")
    assert missing_image_hint("my/own:1").startswith("docker pull my/own:1 or docker load it")


@pytest.mark.docker
@docker_here
def test_the_docker_sandbox_names_an_absent_image_and_its_build_command(monkeypatch):
    monkeypatch.setitem(DEFAULT_IMAGES, "ruby", "icae-env-test/absent-ruby:never")
    with pytest.raises(SandboxError, match="^image icae-env-test/absent-ruby:never is absent here: docker pull "):
        make_sandbox("docker", language="ruby").start()
    if not image_exists("icae-env/kotlin:1.9.25"):
        with pytest.raises(SandboxError, match="^image icae-env/kotlin:1.9.25 is absent here: ICAE's image archive"):
            make_sandbox("docker", language="kotlin").start()


def test_images_list_shows_source_presence_and_versions(monkeypatch, capsys):
    fake = {
        BASE_IMAGE: {"icae-env.versions": json.dumps({"debian": "12.12", "python3": "Python 3.11.2"})},
        "icae-env/go:bookworm": {"icae-env.versions": json.dumps({"go": "go version go1.22.12 linux/amd64"})},
    }
    monkeypatch.setattr(images_module, "image_labels", fake.get)
    assert main(["images", "list"]) == 0
    lines = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert lines[0].split() == ["language", "image", "present", "source", "versions"]
    rows = {line.split()[0]: line.split(None, 4) for line in lines[2:]}
    assert rows["(base)"] == ["(base)", BASE_IMAGE, "yes", "debootstrap", "debian: 12.12; python3: Python 3.11.2"]
    assert rows["go"] == ["go", "icae-env/go:bookworm", "yes", "debian", "go: go version go1.22.12 linux/amd64"]
    assert rows["rust"][2:] == ["no", "debian", "-"] and rows["kotlin"][2:4] == ["no", "archive"]
    assert rows["dart"][1:4] == ["dart:3.5", "no", "registry"] and "(base-trixie)" in rows
    assert set(rows) == {"(base)", "(base-trixie)", *RUNTIMES}


def test_kotlin_without_an_archive_says_how_to_get_one(capsys):
    status = main(["images", "build", "kotlin"])
    out = capsys.readouterr().out
    assert "icae fetch --root DIR --only kotlin-image" in out and "--archive DIR/images/kotlin_1.9.25.tar" in out
    assert status == (0 if image_exists("icae-env/kotlin:1.9.25") else 1)


def test_a_missing_archive_and_an_unknown_language_are_one_line_errors(tmp_path: Path, capsys):
    assert main(["images", "build", "kotlin", "--from-archive", str(tmp_path / "none.tar")]) == 2
    assert main(["images", "build", "haskell"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("icae-env: error: no image archive at ") and "no image recipe for 'haskell'" in err[1]


@pytest.mark.docker
@pytest.mark.timeout(3600)
@docker_here
@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_tiny_program_builds_and_runs_offline_in_its_image(language: str, capsys):
    assert main(["images", "build", language]) == 0
    image = resolve_recipe(language).image
    assert re.search(
        rf"^\S+: {re.escape(image)} (built in \d+ s|already present)[^:]*: ", capsys.readouterr().out, re.M
    )
    files, build, run = PROGRAMS[language]
    with make_sandbox("docker", language=language, network=False) as box:
        assert box.image == image  # type: ignore[attr-defined]
        for path, text in files.items():
            box.write_file(path, text)
        box.write_file("input.json", STDIN)
        compiled = box.exec(build, timeout=600)
        assert compiled.exit_code == 0, compiled.stdout + compiled.stderr
        result = box.exec(f"{run} < input.json", timeout=120)
        assert (result.exit_code, result.stdout) == (0, EXPECTED), result.stderr
        offline = box.exec("getent hosts deb.debian.org || echo no-network")
        assert offline.stdout.strip() == "no-network"


@pytest.mark.docker
@docker_here
def test_images_list_shows_recorded_versions(capsys):
    assert main(["images", "list", "--json"]) == 0
    rows = {row["language"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(EXPECTED_IMAGES) - {"cpp", "csharp", "C#"} <= set(rows) and rows["(base)"]["present"]
    assert rows["(base)"]["versions"]["python3"].startswith("Python 3.11")
    for row in image_rows():
        if row.present and row.source == "debian":
            assert row.versions and all(v and "unavailable" not in v for v in row.versions.values()), row


FAKE_SOURCE = "icae-env-test/fake-kotlin-src:1"


def _fake_kotlin_archive(tmp: Path) -> Path:
    """A ``docker save`` archive of a tiny image: dash, ln, and kotlinc/java scripts on its own PATH."""
    rootfs = tmp / "rootfs"
    tools = [Path("/bin/sh").resolve(), Path(shutil.which("ln") or "/bin/ln")]
    libs = {Path(p) for t in tools for p in subprocess.run(["ldd", t], capture_output=True, text=True).stdout.split()}
    for source in [*tools, *(p for p in libs if p.is_absolute() and p.exists())]:
        target = rootfs / source.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    (rootfs / "bin").mkdir(parents=True, exist_ok=True)  # /bin/sh even where the host's /bin is a link to usr/bin
    (rootfs / "bin" / "sh").write_bytes(tools[0].read_bytes())
    (rootfs / "bin" / "sh").chmod(0o755)
    (rootfs / "usr/local/bin").mkdir(parents=True, exist_ok=True)
    (rootfs / "opt/kotlinc/bin").mkdir(parents=True)
    for tool, line in (("kotlinc", "info: kotlinc-jvm 1.9.25 (fake)"), ("java", 'openjdk version "17" (fake)')):
        script = rootfs / "opt/kotlinc/bin" / tool
        script.write_text(f"#!/bin/sh\necho '{line}' >&2\n")
        script.chmod(0o755)
    layer = tmp / "rootfs.tar"
    with tarfile.open(layer, "w") as tar:
        tar.add(rootfs, arcname=".")
    tag = FAKE_SOURCE
    change = ["--change", "ENV PATH=/opt/kotlinc/bin:/usr/bin:/bin"]
    subprocess.run(["docker", "import", *change, str(layer), tag], check=True, capture_output=True)
    archive = tmp / "images" / "kotlin_1.9.25.tar"  # where icae-env icae fetch puts it
    archive.parent.mkdir()
    subprocess.run(["docker", "save", "-o", str(archive), tag], check=True, capture_output=True)
    remove_image(tag)
    return archive


@pytest.mark.docker
@docker_here
def test_an_image_archive_is_loaded_labelled_and_its_path_tools_linked(tmp_path: Path):
    _fake_kotlin_archive(tmp_path)
    kotlin = recipe_for("kotlin")
    assert kotlin is not None
    recipe = dataclasses.replace(kotlin, image="icae-env-test/kotlin:fake")
    try:
        assert load_archive(recipe, tmp_path) == FAKE_SOURCE  # a data root finds images/kotlin_1.9.25.tar
        labels = image_labels(recipe.image) or {}
        assert labels["icae-env.recipe"] == "kotlin" and labels["icae-env.languages"] == "kotlin"
        versions = json.loads(labels["icae-env.versions"])
        assert versions == {"kotlinc": "info: kotlinc-jvm 1.9.25 (fake)", "java": 'openjdk version "17" (fake)'}
        run = ["docker", "run", "--rm", "--network", "none", "-e", f"PATH={SANDBOX_PATH}", recipe.image]
        probe = subprocess.run([*run, "kotlinc"], capture_output=True, text=True)
        assert probe.returncode == 0 and "1.9.25" in probe.stderr
    finally:
        remove_image(recipe.image)
        remove_image(FAKE_SOURCE)


@pytest.mark.docker
@docker_here
def test_images_build_kotlin_from_archive_loads_tags_and_lists_it(tmp_path: Path, monkeypatch, capsys):
    archive = _fake_kotlin_archive(tmp_path)
    kotlin = dataclasses.replace(resolve_recipe("kotlin"), image="icae-env-test/kotlin:cli")
    monkeypatch.setitem(image_recipes._BY_KEY, "kotlin", kotlin)
    monkeypatch.setitem(image_recipes._BY_LANGUAGE, "kotlin", kotlin)
    monkeypatch.setattr(images_module, "RECIPES", tuple(kotlin if r.key == "kotlin" else r for r in RECIPES))
    monkeypatch.setitem(DEFAULT_IMAGES, "kotlin", kotlin.image)
    try:
        assert main(["images", "build", "kotlin", "--archive", str(archive)]) == 0
        out = capsys.readouterr().out
        assert re.search(
            r"^kotlin: icae-env-test/kotlin:cli built in \d+ s: kotlinc: info: kotlinc-jvm 1.9.25", out, re.M
        )
        assert main(["images", "build", "kotlin", "--from-archive", str(archive)]) == 0
        assert "kotlin: icae-env-test/kotlin:cli already present: kotlinc: " in capsys.readouterr().out
        assert main(["images", "list", "--json"]) == 0
        row = next(r for r in json.loads(capsys.readouterr().out) if r["language"] == "kotlin")
        assert (row["image"], row["present"], row["source"], row["recipe"]) == (kotlin.image, True, "archive", "kotlin")
        assert row["versions"]["java"] == 'openjdk version "17" (fake)'
    finally:
        remove_image(kotlin.image)
        remove_image(FAKE_SOURCE)
