"""Train a model with TRL's GRPO on icae-env episodes (the env's tools are the model's tools, its reward the reward).

Run: python examples/train_trl.py --model PATH_OR_NAME [--env icae/ProjectBuild-v0|icae/Clarify-v0]
     [--tasks builtin/unidiff,builtin/cron-next] [--levels L1] [--steps 10] [--out runs/train_trl]
Needs pip install "icae-env[trl]" and a model whose chat template supports tools (Qwen2.5/Qwen3, Llama 3.1, ...).
Runs on CPU; the rows are every task x level x seed, each a fresh episode.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is experimental in TRL 1.16

import torch  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from icae_env.trainers.trl import ADAPTERS, environment_factory, task_dataset  # noqa: E402


def main() -> None:
    """Parse the arguments, train, save the model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a local path or a model hub name")
    parser.add_argument("--env", default="icae/ProjectBuild-v0", choices=["icae/ProjectBuild-v0", "icae/Clarify-v0"])
    parser.add_argument("--tasks", default="builtin/unidiff,builtin/cron-next")
    parser.add_argument("--levels", default="L1")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--generations", type=int, default=2, help="completions per row (the GRPO group)")
    parser.add_argument("--max-completion-length", type=int, default=512, help="tokens per episode, tool results too")
    parser.add_argument("--out", default="runs/train_trl")
    args = parser.parse_args()

    on_gpu = torch.cuda.is_available()
    dataset = task_dataset(args.env, args.tasks.split(","), args.levels.split(","), seeds=range(args.steps))
    config = GRPOConfig(
        output_dir=args.out, max_steps=args.steps, per_device_train_batch_size=args.generations,
        num_generations=args.generations, max_completion_length=args.max_completion_length, logging_steps=1,
        report_to=[], save_strategy="no", disable_tqdm=True, use_cpu=not on_gpu, bf16=on_gpu,
    )  # fmt: skip
    trainer = GRPOTrainer(model=args.model, args=config, train_dataset=dataset,
                          environment_factory=environment_factory(args.env))  # fmt: skip
    trainer.train()
    name = f"rewards/{ADAPTERS[args.env].__name__}/mean"  # the env reward column
    rewards = [round(log[name], 3) for log in trainer.state.log_history if name in log]
    print(f"{trainer.state.global_step} GRPO steps; mean env reward per step: {rewards}")
    trainer.save_model(os.path.join(args.out, "model"))


if __name__ == "__main__":
    main()
