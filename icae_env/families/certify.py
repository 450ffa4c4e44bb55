"""Certification of a generated task, cheapest checks first; a task that fails one is never handed out.

Checks (each failure is one line in :attr:`Certificate.failures`; figures go to :attr:`Certificate.metrics`; routing,
the costliest, runs only when every other check passed):

1. **richness**: L1 has 150-250 words, >= 3 features, >= 5 native and >= 3 enhanced cases per feature;
2. **ablations**: every single-decision ablation of the golden fails >= 2 hidden cases;
3. **tells**: each hidden decision's tells appear in exactly one L1 record (its own; the public case files are
   records too) and in no L1 text or context pointer;
4. **ambiguity**: after the public cases some wrong value of each hidden decision still agrees with all of them;
5. **routing**, with each router of :data:`CERTIFY_ROUTERS`: every stored trigger routes top-1 to its record, and
   at least half of each decision's held-out paraphrases reach it in the top 3 (the share over all of them is
   reported under :func:`reach_metric`: ``paraphrase_top3`` for the first router, ``paraphrase_top3_<router>``
   for the others);
   (format records likewise, with their own triggers and paraphrases);
6. **naive ceiling**: the golden with every hidden decision at its naive default scores at most
   :data:`NAIVE_CEILING` Overall on the hidden tiers;
7. **budget**: one question per L1 record (hidden decisions and format records) fits the task's question budget;
8. **formats** (:mod:`icae_env.families.formats`): every output line matches exactly one declared template, every
   template printed is stated at every level, each level states a superset of the level below, and no hidden case
   holds a word no level-visible channel contains (``unreachable_<level>`` metrics);
9. **determinism**: the golden's outputs are the same on a second run.

The real harness (golden 100%, empty 0%, both goldens of a two-language family agreeing) is ``icae-env tasks
validate``'s job: it costs seconds per task where these cost milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from icae_env.families.cases import Ablations
from icae_env.families.formats import LEVELS, Formats, template_problems, unreachable_share
from icae_env.families.model import Model, load_model
from icae_env.families.pack_files import format_ids
from icae_env.families.spec import Family, Plan
from icae_env.tasks.models import Task
from icae_env.user_agent.base import Document, Router
from icae_env.user_agent.grounded import documents_for, make_router

__all__ = [
    "CERTIFY_ROUTERS",
    "NAIVE_CEILING",
    "Certificate",
    "certifier_digest",
    "certify",
    "paraphrase_reach",
    "reach_metric",
    "reach_share",
]

NAIVE_CEILING = 0.5
L1_WORDS = (150, 250)
MIN_FEATURES, MIN_NATIVE, MIN_ENHANCED, MIN_ABLATION_FAILS = 3, 5, 3, 2

#: The routers of the routing check: a certified task's hidden requirements are askable with each, so with the
#: default router (:data:`~icae_env.registration.DEFAULT_ROUTER`, which a test keeps among them) and with the
#: ``lexical`` router the families' trigger pools were written against. A fixed tuple, not the default router, so
#: that which attempt certifies (and so what ``gen/<family>/<split>/<index>`` is) moves only when this table or one
#: of its routers changes (refitting a router's constants or re-distilling the encoder can move generated tasks).
#: The cascade's cross-encoder makes a first certification cost about 3 s per task on two cores; its logits are
#: stored on disk (:mod:`icae_env.user_agent.models.logit_store`), so certifying the same task again costs about 0.4 s.
CERTIFY_ROUTERS = ("lexical", "cascade")


def certifier_digest() -> str:
    """A digest of what certification routes with: the router table, the User Agent's code and its model files.

    Part of every generated task's full version (task metadata ``family_version``): refitting a router, changing
    its code or this table can change which attempt certifies, so it changes the digest.
    """
    return _digest(CERTIFY_ROUTERS)


@cache
def _digest(routers: tuple[str, ...]) -> str:
    import hashlib
    from pathlib import Path

    import icae_env.user_agent as package

    root = Path(package.__file__).parent
    digest = hashlib.sha256(repr(routers).encode())
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".npz") and "optional" not in path.parts and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:8]


def reach_metric(router: str) -> str:
    """Return the certificate metric holding ``router``'s paraphrase top-3 share (see the routing check)."""
    return "paraphrase_top3" if router == CERTIFY_ROUTERS[0] else f"paraphrase_top3_{router}"


@dataclass
class Certificate:
    """What certification found.

    Attributes:
        failures: One line per broken rule (empty: certified).
        metrics: Figures of the task (L1 words, paraphrase top-3 share, naive-default Overall ...).
    """

    failures: list[str] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return not self.failures


def _hidden_cases(task: Task) -> list[tuple[Any, str]]:
    return [
        (c.input, c.expected_text) for tier in ("native", "enhanced") for f in task.tests.tier(tier) for c in f.cases
    ]


def _fails(model: Model, cases: list[tuple[Any, str]]) -> int:
    failed = 0
    for data, expected in cases:
        try:
            failed += model(data) != expected
        except Exception:  # noqa: BLE001 - a crash fails the case
            failed += 1
    return failed


def _richness(task: Task, cert: Certificate) -> None:
    words = len(task.prd("L1").split())
    cert.metrics["l1_words"] = words
    if not L1_WORDS[0] <= words <= L1_WORDS[1]:
        cert.failures.append(f"richness: L1 has {words} words, not {L1_WORDS[0]}-{L1_WORDS[1]}")
    stems = {f.stem for f in task.tests.public} | {f.stem for f in task.tests.native}
    if len(stems) < MIN_FEATURES:
        cert.failures.append(f"richness: {len(stems)} features, fewer than {MIN_FEATURES}")
    for tier, least in (("native", MIN_NATIVE), ("enhanced", MIN_ENHANCED)):
        for case_file in task.tests.tier(tier):  # type: ignore[arg-type]
            if len(case_file.cases) < least:
                cert.failures.append(f"richness: {tier} {case_file.stem} has {len(case_file.cases)} cases, < {least}")


def _ablations(task: Task, others: Ablations, cert: Certificate) -> None:
    cases = _hidden_cases(task)
    failed = {pair: _fails(model, cases) for pair, model in others.items()}
    cert.metrics["min_ablation_fails"] = min(failed.values(), default=0)
    for (name, value), count in failed.items():
        if count < MIN_ABLATION_FAILS:
            cert.failures.append(f"ablation: {name}={value} fails only {count} hidden cases")


def _record_ids(family: Family, plan: Plan) -> dict[str, str]:
    return {name: f"C{i:03d}" for i, name in enumerate(plan.hidden, start=1)}


def _tells(family: Family, plan: Plan, task: Task, cert: Certificate) -> None:
    data = task.user_agent_data("L1")
    texts = [
        task.prd("L1").lower(),
        *(f"{p.vague_reference} {p.actual_meaning}".lower() for p in data.context_pointers),
    ]
    ids = _record_ids(family, plan)
    for name in plan.hidden:
        for tell in family.decision(name).value(plan.values[name]).tells:
            needle = plan.text(tell).lower()
            holders = [r.constraint_id for r in data.hidden_constraints if needle in r.oracle_response.lower()]
            if holders != [ids[name]]:
                cert.failures.append(f"tells: {needle!r} of {name} is in records {holders}, not only {ids[name]}")
            if any(needle in text for text in texts):
                cert.failures.append(f"tells: {needle!r} of {name} is in the L1 text or a context pointer")


def _ambiguity(plan: Plan, task: Task, others: Ablations, cert: Certificate) -> None:
    public = [(c.input, c.expected_text) for f in task.tests.public for c in f.cases]
    for name in plan.hidden:
        if not any(_fails(m, public) == 0 for (d, _), m in others.items() if d == name):
            cert.failures.append(f"ambiguity: the public cases leave no wrong value of {name} open")


def paraphrase_reach(family: Family, plan: Plan, task: Task, router: str = CERTIFY_ROUTERS[0]) -> dict[str, list[bool]]:
    """Return, per hidden decision, whether each of its held-out paraphrases reaches its L1 record in the top 3.

    Args:
        family: The task's family.
        plan: The task's plan.
        task: The task.
        router: The router asked (the first of :data:`CERTIFY_ROUTERS` by default).
    """
    documents = documents_for(task.user_agent_data("L1"))
    return _reach(family, plan, documents, make_router(router, documents))


def reach_share(reach: dict[str, list[bool]]) -> float:
    """Return the share of all paraphrases in a :func:`paraphrase_reach` result that reach their record (1.0: none)."""
    total = sum(len(hits) for hits in reach.values())
    return sum(sum(hits) for hits in reach.values()) / total if total else 1.0


def _asked(family: Family, plan: Plan) -> dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Per askable L1 record: (its id, stored triggers, held-out paraphrases); decisions by name, formats by key."""
    ids = _record_ids(family, plan)
    asked = {
        name: (ids[name], family.decision(name).triggers, family.decision(name).paraphrases) for name in plan.hidden
    }
    formats = format_ids(family, plan)
    for record in family.formats_of(plan.features):
        asked[f"format {record.key}"] = (formats[record.key], record.triggers, record.paraphrases)
    return asked


def _reach(family: Family, plan: Plan, documents: tuple[Document, ...], router: Router) -> dict[str, list[bool]]:
    return {
        name: [cid in [documents[m.index].doc_id for m in router.route(plan.text(q))[:3]] for q in paraphrases]
        for name, (cid, _, paraphrases) in _asked(family, plan).items()
    }


def _routing(family: Family, plan: Plan, task: Task, cert: Certificate) -> None:
    documents = documents_for(task.user_agent_data("L1"))
    for router_name in CERTIFY_ROUTERS:
        router = make_router(router_name, documents)
        for name, (cid, triggers, _) in _asked(family, plan).items():
            for trigger in triggers:
                top = [documents[m.index].doc_id for m in router.route(plan.text(trigger))[:1]]
                if top != [cid]:
                    cert.failures.append(
                        f"routing ({router_name}): stored trigger {trigger!r} of {name} routes to {top}"
                    )
        reach = _reach(family, plan, documents, router)
        for name, hits in reach.items():
            if 2 * sum(hits) < len(hits):
                cert.failures.append(
                    f"routing ({router_name}): only {sum(hits)}/{len(hits)} held-out paraphrases of {name} reach it"
                )
        cert.metrics[reach_metric(router_name)] = reach_share(reach)


def _naive(family: Family, plan: Plan, task: Task, cert: Certificate) -> None:
    naive = plan
    for name in plan.hidden:
        naive = naive.with_value(name, family.decision(name).naive)
    cases = _hidden_cases(task)
    overall = 1.0 - _fails(load_model(family.golden(naive, "python")), cases) / len(cases) if cases else 0.0
    cert.metrics["naive_overall"] = overall
    if overall > NAIVE_CEILING:
        cert.failures.append(f"naive ceiling: the all-defaults golden scores {overall:.2f} > {NAIVE_CEILING}")


def _budget(family: Family, plan: Plan, cert: Certificate) -> None:
    needed = len(plan.hidden) + len(family.formats_of(plan.features))
    budget = int(plan.knobs.get("budget", 16))
    cert.metrics["questions_needed"] = needed
    if needed > budget:
        cert.failures.append(f"budget: {needed} records to ask for (decisions and formats), budget {budget}")


def _formats(family: Family, plan: Plan, task: Task, cert: Certificate) -> None:
    if not family.templates:
        cert.failures.append(f"templates: family {family.name!r} declares no output templates")
    else:
        cert.failures.extend(template_problems(Formats.of(family, plan), task))
    for level in LEVELS:
        share, words = unreachable_share(task, level)
        cert.metrics[f"unreachable_{level}"] = share
        if share:
            cert.failures.append(f"formats: {share:.0%} of hidden cases print words no {level} channel has: {words}")


def certify(
    family: Family, plan: Plan, task: Task, golden: dict[str, str], others: Ablations, route: bool = True
) -> Certificate:
    """Run every in-process check on a generated task (see the module docstring).

    The routing check, by far the costliest (the cascade's cross-encoder), runs last and only when every other
    check passed: a task is rejected on its first failure anyway, so a rejected attempt never pays for it.
    ``route=False`` skips it (figures of the other checks only; such a certificate never hands out a task).
    """
    cert = Certificate()
    _richness(task, cert)
    _budget(family, plan, cert)
    _formats(family, plan, task, cert)
    _ablations(task, others, cert)
    _tells(family, plan, task, cert)
    _ambiguity(plan, task, others, cert)
    _naive(family, plan, task, cert)
    model = load_model(golden)
    if _fails(model, _hidden_cases(task)):
        cert.failures.append("determinism: the golden's outputs changed on a second run")
    if route and not cert.failures:
        _routing(family, plan, task, cert)
    return cert
