"""``grade-book``: a course gradebook (final grades, letters, ranking, assessment statistics, a data check).

Texts, decisions and skins are in ``family.yaml``; the golden in ``golden/`` and ``blocks/``. Public samples keep
every house rule out of sight (no missing or late work, one assessment per category, whole grades away from the
letter cutoffs, no ties, odd counts, at most one broken student); typical samples mix them all in, and boundary
samples aim at one rule each (grades exactly on a cutoff, tied students, even counts, long lateness).
"""

from __future__ import annotations

import random
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["GradeBook"]

OPS = {"feature1_final": "final", "feature2_letters": "letters", "feature3_ranking": "ranking",
       "feature4_stats": "stats", "feature5_check": "check"}  # fmt: skip
MAXES = (10, 20, 25, 50, 100, 40)
CUTOFFS = (60, 63, 67, 70, 73, 77, 80, 83, 87, 90, 93)
#: Whole grades on which every letter rule agrees (away from every cutoff of both scales).
SAFE_GRADES = (*range(94, 100), 84, 85, 86, 74, 75, 76, 64, 65, 66, *range(45, 60, 2))


def _number(value: float) -> int | float:
    """A score as people export it: an integer when whole, else at most two decimals."""
    value = round(value, 2)
    return int(value) if value == int(value) else value


def _score(percent: float, top: int) -> int | float:
    return _number(percent * top / 100)


class GradeBook(Family):
    """A course gradebook; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        op = OPS[feature]
        data = getattr(self, "_" + op)(plan, rng, kind)
        if kind == "malformed":
            return self._malformed(data, rng)
        return data

    # --- the request skeleton -----------------------------------------------------------------------------------

    @staticmethod
    def _frame(plan: Plan, rng: random.Random, op: str, per_category: tuple[int, int]) -> dict[str, Any]:
        pools = plan.skin.pools
        categories = rng.sample(pools["categories"], rng.randint(2, 3))
        weights: dict[str, float] = {c: rng.choice((10, 15, 20, 25, 30, 40, 50, 60)) for c in categories}
        if rng.random() < 0.15:
            weights[categories[0]] = rng.choice((12.5, 0.3, 7.5))
        assessments = []
        for category in categories:
            prefix = category.split()[0][:4]
            for k in range(1, rng.randint(*per_category) + 1):
                assessments.append({"id": f"{prefix}{k}", "category": category, "max": rng.choice(MAXES)})
        course = rng.choice(pools["courses"])
        return {"op": op, "course": course, "weights": weights, "assessments": assessments, "students": []}

    @staticmethod
    def _student(
        name: str, data: dict[str, Any], rng: random.Random, missing: float = 0.0, late: float = 0.0
    ) -> dict[str, Any]:
        ability = rng.uniform(45, 100)
        scores: dict[str, Any] = {}
        delays: dict[str, int] = {}
        for item in data["assessments"]:
            roll = rng.random()
            if roll < missing:
                if rng.random() < 0.5:
                    scores[item["id"]] = None
                continue
            percent = min(100.0, max(0.0, rng.gauss(ability, 12)))
            scores[item["id"]] = (
                _score(percent, item["max"]) if rng.random() < 0.3 else round(percent * item["max"] / 100)
            )
            if rng.random() < late:
                delays[item["id"]] = rng.choice((1, 1, 2, 3, 4, 5, 6))
        student: dict[str, Any] = {"name": name, "scores": scores}
        if delays:
            student["late"] = delays
        return student

    def _cohort(
        self, plan: Plan, data: dict[str, Any], rng: random.Random, count: int, missing: float, late: float
    ) -> None:
        names = rng.sample(plan.skin.pools["names"], count)
        data["students"] = [self._student(n, data, rng, missing, late) for n in names]

    @staticmethod
    def _uniform(name: str, data: dict[str, Any], percent: int) -> dict[str, Any]:
        """A student with the same percentage on every assessment (whose grade is that percentage exactly)."""
        return {"name": name, "scores": {a["id"]: _score(percent, a["max"]) for a in data["assessments"]}}

    def _public_grades(self, plan: Plan, rng: random.Random, op: str, grades: list[int]) -> dict[str, Any]:
        data = self._frame(plan, rng, op, (1, 1))
        # request order = name order = grade order, so the line order stays open
        names = sorted(rng.sample(plan.skin.pools["names"], len(grades)))
        ranked = sorted(grades, reverse=True)
        data["students"] = [self._uniform(n, data, g) for n, g in zip(names, ranked, strict=True)]
        return data

    # --- features ----------------------------------------------------------------------------------------------

    def _graded(self, plan: Plan, rng: random.Random, kind: SampleKind, op: str) -> dict[str, Any]:
        if kind == "public":
            pool = SAFE_GRADES if op == "letters" else range(40, 100)
            return self._public_grades(plan, rng, op, rng.sample(pool, rng.randint(2, 3)))
        data = self._frame(plan, rng, op, (1, 3))
        self._cohort(plan, data, rng, rng.randint(3, 6), 0.15, 0.2)
        if kind == "boundary":
            self._edge(plan, data, rng, op)
        elif rng.random() < 0.25:
            self._bonus(data, rng)
        return data

    @staticmethod
    def _bonus(data: dict[str, Any], rng: random.Random) -> None:
        """One score above its assessment's max (extra credit, a typo, or a data error: the house decides)."""
        student = rng.choice(data["students"])
        item = rng.choice(data["assessments"])
        student["scores"][item["id"]] = _number(item["max"] * rng.choice((1.1, 1.2, 1.05)) + rng.randint(0, 2))

    def _edge(self, plan: Plan, data: dict[str, Any], rng: random.Random, op: str) -> None:
        """One rule-revealing student or layout: a grade on a cutoff, a tie, nothing handed in, long lateness."""
        roll = rng.randrange(5)
        taken = {s["name"] for s in data["students"]}
        spare = [n for n in plan.skin.pools["names"] if n not in taken]
        if roll == 0 or op == "letters" and roll < 3:
            data["students"].append(self._uniform(spare[0], data, rng.choice(CUTOFFS)))
        elif roll == 1 or op == "ranking" and roll < 3:
            twin = rng.choice(data["students"])
            twin = {**twin, "name": spare[0], "scores": dict(twin["scores"])}
            data["students"].append(twin)
        elif roll == 2:
            data["students"].append({"name": spare[0], "scores": {a["id"]: None for a in data["assessments"][:2]}})
        elif roll == 3:
            student = rng.choice(data["students"])
            student["late"] = {a["id"]: rng.randint(4, 12) for a in rng.sample(data["assessments"], 2)}
        else:
            data["students"] = data["students"][:1]
        if op == "ranking" and rng.random() < 0.5:
            data["top"] = rng.randint(1, 3)
        rng.shuffle(data["students"])

    def _final(self, plan: Plan, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        return self._graded(plan, rng, kind, "final")

    def _letters(self, plan: Plan, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        data = self._graded(plan, rng, kind, "letters")
        if kind == "typical" and rng.random() < 0.5:
            data["students"].append(self._uniform(rng.choice(plan.skin.pools["names"]) + " Jr", data,
                                                  rng.choice(CUTOFFS)))  # fmt: skip
        return data

    def _ranking(self, plan: Plan, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        data = self._graded(plan, rng, kind, "ranking")
        if kind == "typical":
            if rng.random() < 0.6:
                twin = rng.choice(data["students"])
                data["students"].append({"name": twin["name"] + " II", "scores": dict(twin["scores"])})
            if rng.random() < 0.4:
                data["top"] = rng.randint(1, len(data["students"]))
        return data

    def _stats(self, plan: Plan, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        data = self._frame(plan, rng, "stats", (1, 2))
        if kind == "public":
            self._cohort(plan, data, rng, rng.choice((3, 5)), 0.0, 0.0)
            return data
        count = rng.choice((2, 4, 4, 6, 3, 5)) if kind == "typical" else rng.choice((1, 2, 4))
        self._cohort(plan, data, rng, count, 0.2 if kind == "typical" else 0.4, 0.1)
        if kind == "typical" and rng.random() < 0.2:
            self._bonus(data, rng)
        if kind == "boundary" and rng.random() < 0.4:
            gone = rng.choice(data["assessments"])["id"]
            for student in data["students"]:
                student["scores"][gone] = None
        return data

    def _check(self, plan: Plan, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        data = self._frame(plan, rng, "check", (1, 2))
        self._cohort(plan, data, rng, rng.randint(3, 6), 0.1, 0.15)
        students = data["students"]
        if kind == "public":
            bad = rng.sample(range(len(students)), rng.randint(0, 1))
        elif kind == "boundary":
            bad = rng.sample(range(len(students)), rng.randint(1, 3))
        else:
            bad = rng.sample(range(len(students)), rng.choice((0, 2, 2, 3, 1)))
        for index in sorted(bad):
            self._spoil(students, index, data["assessments"], rng, kind == "boundary")
        return data

    @staticmethod
    def _spoil(students: list[dict[str, Any]], index: int, items: list[dict[str, Any]], rng: random.Random,
               edge: bool) -> None:  # fmt: skip
        student = students[index]
        for _ in range(rng.choice((1, 1, 2))):
            item = rng.choice(items)
            roll = rng.randrange(6)
            if roll == 0:
                student["scores"][item["id"]] = item["max"] + (0.5 if edge else rng.randint(1, 30))
            elif roll == 1:
                student["scores"][item["id"]] = -rng.randint(1, 5)
            elif roll == 2:
                student["scores"][f"{item['id']}x"] = rng.randint(1, 9)
            elif roll == 3:
                student["scores"][item["id"]] = rng.choice(("A", str(item["max"]), "n/a", True))
            elif roll == 4:
                student.setdefault("late", {})[item["id"]] = rng.choice((-1, 1.5, "2", True))
            elif index:
                student["name"] = students[index - 1]["name"]

    # --- malformed requests: one broken field, or bad data in the other ops -------------------------------------

    @staticmethod
    def _messy(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        """A valid export with the clutter real ones have: stray fields, explicit nulls, empty late objects."""
        for student in data["students"]:
            for item in data["assessments"]:
                if item["id"] not in student["scores"] and rng.random() < 0.5:
                    student["scores"][item["id"]] = None
            if rng.random() < 0.3:
                student.setdefault("late", {})
            if rng.random() < 0.3:
                student["email"] = student["name"].lower().replace(" ", ".") + "@example.org"
        extra = {"term": rng.choice(("2025S", "2025F", "2026S")), "exported_by": rng.choice(("lms", "sheet"))}
        return {**data, **dict(rng.sample(sorted(extra.items()), rng.randint(1, 2))), "top": data.get("top")}

    def _malformed(self, data: dict[str, Any], rng: random.Random) -> Any:
        """Half the time a messy but valid export, else one broken field (or bad data in a report op)."""
        if rng.random() < 0.5:
            return self._messy(data, rng)
        roll = rng.randrange(9)
        students = data["students"]
        if roll == 0 and students:
            students[-1]["scores"][data["assessments"][0]["id"]] = data["assessments"][0]["max"] + rng.randint(1, 9)
            return data
        if roll == 1:
            return {**data, "op": rng.choice(("grades", "Final", "", "rank"))}
        if roll == 2:
            return [data["course"], data["op"], students]
        if roll == 3:
            category = next(iter(data["weights"]))
            return {**data, "weights": {**data["weights"], category: rng.choice((0, -10, "30%", None))}}
        if roll == 4:
            items = [dict(a) for a in data["assessments"]]
            items[-1] = {**items[-1], "category": "extra credit"} if rng.random() < 0.5 else {**items[-1], "max": 0}
            return {**data, "assessments": items}
        if roll == 5 and students:
            students[0] = {"name": students[0]["name"], "scores": list(students[0]["scores"].values())}
            return data
        if roll == 6:
            return {**data, "course": rng.choice(("", "  ", 101))}
        if roll == 7:
            return {**data, "top": rng.choice((0, -1, "3", 2.5))}
        if students:
            students[0].setdefault("late", {})[data["assessments"][0]["id"]] = rng.choice((-2, "1"))
        return data
