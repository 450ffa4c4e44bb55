"""``ledger-report``: reports over a list of money entries (totals, top entries, checks, date ranges, averages).

The reference family: every other family follows its shape (the texts, decisions with values, features and skins in
``family.yaml``; a golden made of a fixed core plus one block per decision value in ``golden/`` and ``blocks/``; the
samplers per feature here).
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["LedgerReport"]

OPS = {"feature1_totals": "totals", "feature2_top": "top", "feature3_check": "check", "feature4_range": "range",
       "feature5_average": "average"}  # fmt: skip
_TITLES = ("Q{n} review", "Budget {n}", "Batch {n}", "Week {n} report", "Audit {n}", "Close {n}")


def _amount(rng: random.Random, big: bool) -> str:
    cents = rng.randint(100_000, 250_000_000) if big else rng.randint(1, 99_999)
    return f"{cents // 100}.{cents % 100:02d}" if rng.random() < 0.8 else str(cents // 100)


def _day(rng: random.Random, month: int = 3) -> str:
    return datetime.date(2024, month, rng.randint(1, 28)).isoformat()


class LedgerReport(Family):
    """Reports over money entries; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        names = list(plan.skin.pools["names"])
        data: dict[str, Any] = {"op": OPS[feature], "title": rng.choice(_TITLES).format(n=rng.randint(1, 9999))}
        if kind == "public":
            count, kinds = rng.randint(1, 3), 1
        elif kind == "boundary":
            count, kinds = rng.choice((1, 2, 12)), rng.randint(1, 2)
        else:
            count, kinds = rng.randint(5, 12), rng.randint(3, 5)
        chosen = rng.sample(names, kinds)
        same = _amount(rng, False)
        entries = [
            {
                "category": rng.choice(chosen),
                "amount": same
                if kind == "boundary" and rng.random() < 0.5
                else _amount(rng, kind != "public" and rng.random() < 0.3),
                "date": _day(rng),
            }
            for _ in range(count)
        ]
        if kind == "public":
            entries = [dict(e, category=chosen[0]) for e in entries]
        data["entries"] = entries
        return self._finish(data, feature, kind, rng)

    def _finish(self, data: dict[str, Any], feature: str, kind: SampleKind, rng: random.Random) -> Any:
        entries = data["entries"]
        if feature == "feature2_top":
            if kind == "public":
                amounts = sorted({e["amount"] for e in entries})
                data["entries"] = [dict(e, amount=f"{i + 1}.{rng.randint(10, 99)}") for i, e in enumerate(entries)]
                data["n"] = len(amounts)
            elif rng.random() < 0.4:
                data["n"] = rng.randint(1, 12)
            if kind == "typical" and rng.random() < 0.5 and len(entries) > 2:
                entries[rng.randrange(len(entries))]["amount"] = entries[0]["amount"]
        if feature == "feature4_range":
            days = sorted(e["date"] for e in entries)
            data["from"] = days[0] if kind != "public" else "2024-03-01"
            data["to"] = days[-1] if kind != "public" else "2024-03-31"
        if kind == "malformed":
            self._break(data, rng)
        elif feature == "feature3_check" and kind == "typical":
            for _ in range(rng.randint(1, 3)):
                self._break_entry(entries, rng)
        return data

    @staticmethod
    def _break_entry(entries: list[dict[str, Any]], rng: random.Random) -> None:
        entry = rng.choice(entries)
        field = rng.choice(("category", "amount", "date"))
        entry[field] = {"category": "", "amount": rng.choice(("12.345", "abc", "-5")), "date": "2024-13-01"}[field]

    def _break(self, data: dict[str, Any], rng: random.Random) -> None:
        choice = rng.randrange(5)
        if choice == 0:
            data["entries"] = "not a list"
        elif choice == 1:
            data["op"] = rng.choice(("sum", "list", "TOTALS"))
        elif choice == 2 and data["op"] == "top":
            data["n"] = rng.choice((0, -1, "3"))
        elif choice == 3 and data["op"] == "range":
            data["to"] = "2024-02-30"
        else:
            for _ in range(rng.randint(1, 2)):
                self._break_entry(data["entries"], rng)
