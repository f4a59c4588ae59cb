"""Scale-out example: train on the registered cuegym envs with Ray RLlib (optional, not in CI).

Ray is *not* a cuegym dependency; install it yourself (``pip install "ray[rllib]"``, a large
download) on every machine of the cluster, together with cuegym. Each RLlib env runner steps
``--tables`` single envs in a ``SyncVectorEnv`` (RLlib's runners expect gymnasium's next-step
autoreset; the envs' ``vector_entry_point``, one physics call for all tables, resets a finished
table in the same step, which RLlib would mistake); runners spread over the cluster's CPUs.

    python experiments/rllib_example.py --env cuegym/KeglebillardShot-v0 --runners 4 \\
        --tables 64 --iterations 50
    # on a cluster: start Ray first (ray start --head / --address=...), then add --address auto

Checked with Ray 2.60.0 (``pip install "ray[rllib]" torch==2.13.0`` in a separate venv; 2
iterations, 1 runner x 16 tables, 4 s) when it still used the ``vector_entry_point``; the
``sync`` mode it uses since is RLlib's default, not re-run here (no Ray in this venv). What it
does: PPO (RLlib's new API stack, Ray >= 2.40) on the env's own action space (gamma 0 for the
Shot envs, 0.9 for whole games), ``--runners`` env runners with ``--tables`` tables each, built
by RLlib as ``gymnasium.make_vec(id, num_envs, vectorization_mode="sync")`` (the ids are
registered on every worker by a ``worker_process_setup_hook``), tournament shot noise;
prints the mean episode return per iteration and saves a checkpoint under ``runs/rllib/<id>/``
of the working directory. The
trained RLlib policy is not an SB3 model; to evaluate it in ``experiments/evaluate.py`` wrap its
module's ``forward_inference`` in a ``cuegym.agents.Agent`` (observations from
``cuegym.games.kegle.Kegle.observe``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cuegym.cli_errors import EXIT_USAGE, check_writable_dir, cli_main, did_you_mean, script_prog


def checkpoint_dir(env_id: str) -> Path:
    """Where the checkpoint of ``env_id`` goes: ``runs/rllib/<id>`` under the working
    directory, as every command's ``runs/``."""
    return Path("runs") / "rllib" / env_id.replace("/", "_")


def _args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked before Ray is imported or started."""
    from cuegym.envs import ENV_IDS

    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="cuegym/KeglebillardShot-v0",
                   help="a registered cuegym id (default cuegym/KeglebillardShot-v0)")
    p.add_argument("--runners", type=int, default=2,
                   help="RLlib env runners (0: sample in the driver; default 2)")
    p.add_argument("--tables", type=int, default=64, help="tables per runner (default 64)")
    p.add_argument("--iterations", type=int, default=20,
                   help="training iterations (default 20)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: local)")
    args = p.parse_args(argv)
    if args.env not in ENV_IDS:
        p.error(f"--env: unknown env id {args.env!r}{did_you_mean(args.env, ENV_IDS)}; known: "
                f"{', '.join(ENV_IDS)}")
    for opt, v, lo in (("--runners", args.runners, 0), ("--tables", args.tables, 1),
                       ("--iterations", args.iterations, 1)):
        if v < lo:
            p.error(f"{opt} must be >= {lo}, got {v}")
    check_writable_dir(checkpoint_dir(args.env), "the checkpoint folder")  # before training
    return args


@cli_main
def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    try:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig
    except ImportError as exc:
        missing = getattr(exc, "name", None) or "ray"
        print(f"error: Ray RLlib is not installed (no module {missing!r}): pip install "
              "'ray[rllib]' (an optional dependency, not cuegym's)", file=sys.stderr)
        return EXIT_USAGE
    import gymnasium as gym

    import cuegym.envs  # noqa: F401 - registers the ids in this process

    # every Ray worker imports cuegym.envs first, so the ids (with their vector_entry_point)
    # are registered with Gymnasium there too
    ray.init(address=args.address, ignore_reinit_error=True,
             runtime_env={"worker_process_setup_hook": "cuegym.envs.register_envs"})
    config = (
        PPOConfig()
        .environment(args.env, env_config={"noise": "tournament"})
        # SYNC: RLlib's runners take a finished env's reset from the *next* step (Ray 2.60's
        # single_agent_env_runner), while the native vector env resets in the same step: its
        # next episode's first step and every truncation's bootstrap would be wrong
        .env_runners(num_env_runners=args.runners, num_envs_per_env_runner=args.tables,
                     gym_env_vectorize_mode=gym.VectorizeMode.SYNC)
        # a Shot episode is one shot (gamma 0); whole games value the shots after (as selfplay)
        .training(gamma=0.0 if "Shot" in args.env else 0.9, lr=3e-4,
                  # (--runners 0: the driver's runner samples)
                  train_batch_size_per_learner=max(args.runners, 1) * args.tables * 32)
    )
    algo = config.build_algo()
    for it in range(1, args.iterations + 1):
        result = algo.train()
        ret = result.get("env_runners", {}).get("episode_return_mean")
        print(f"iteration {it:>3}: mean episode return {ret}", flush=True)
    out = checkpoint_dir(args.env).absolute()
    out.mkdir(parents=True, exist_ok=True)
    saved = algo.save(str(out))  # a TrainingResult on recent Ray: print its path only
    print("checkpoint:", getattr(getattr(saved, "checkpoint", None), "path", saved))
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
