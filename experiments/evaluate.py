"""Tournament between agents: win rates with 95 % intervals, Bradley-Terry ratings, points per
shot, foul rate; and a benchmark of mean returns per env id (``--benchmark``).

Every pair of agents plays ``--games`` games (seats alternate: the first-listed agent breaks /
plays side 0 in the games numbered 0, 2, 4, ..., so each does in half of them, the first one
game more when ``--games`` is odd) through the rules' game flow (``cuegym.agents.arena``), with
tournament shot noise on every strike. Agents are names (``random``, ``geometric``,
``planner``, ``guided``, ``pretrained``) with optional settings after a colon
(``planner:n_candidates=32,n_noise=2``), or saved SB3 models (``runs/<name>/best_model.zip``).

    python experiments/evaluate.py --game keglebillard --agents pretrained,geometric,random \\
        --games 100 --seed 0 --json
    python experiments/evaluate.py --game keglebillard --table keglebillard-helmatch \\
        --agents planner,geometric --games 50
    python experiments/evaluate.py --game golfbillard --rules duo=true match=best_of_3 \\
        --agents planner,geometric --games 50
    python experiments/evaluate.py --benchmark --episodes 256     # writes docs/benchmarks.md

The setting: ``--table`` a table config name (``configs/tables``: keglebillard is played on
``keglebillard``, the kleinmatch, the default, or ``keglebillard-helmatch``; golfbillard on its
one table), ``--rules`` rule options over the shipped ``configs/rules/<game>.yaml``, as
``KEY=VALUE`` words (values read as YAML, as ``--set``'s in train.py) or a YAML file of them,
later over earlier (keglebillard ``distance=50``, ``variant=ddbu``; golfbillard ``duo=true``,
``match=best_of_3``: single games, ``match: single``, unless given; under ``best_of_3`` a
"game" of the tournament is a whole match: ``--games``, the counts, rates, intervals, ratings
and ``--max-shots`` are of matches, and the table says so). The arena plays it
(:func:`tournament_arena`) and every agent is made for it (``make_agent(..., arena=arena)``).
A bad table or rule option is refused before any game, naming the option and its value; so
are options the arenas do not play (``first_player`` other than ``player0``; two players
only: ``play_games`` is two-seat). The results name the setting (``table``, and ``rules``:
the options that differ from the default).

Outcomes: a game is *won*, *drawn* (it ended by the rules and nobody won: golfbillard G-5) or
*unfinished* (cut off by ``--max-shots`` before its end, whatever the score: neither a win nor
a draw). ``win_rate[a][b]`` is a's wins over the *finished* games against b (null if none
finished), with its Wilson 95 % interval in ``win_rate_ci``; unfinished games are counted in
``unfinished`` and left out of the win and draw rates and the ratings. The per-shot columns
(``points_per_shot``, ``foul_rate``, ``given_per_shot``) count every shot an agent played,
in finished and unfinished games alike.

``rating`` is the Bradley-Terry strength fitted by maximum likelihood to all finished games
(a draw half a win for each side; one virtual draw per pair as a weak prior), on the Elo scale
(mean 0; +191 means 3 : 1 odds), ``rating_se`` its standard error (the printed table's
``± se``; the figure's bars are 95 % intervals, 1.96 se): it does not depend on the order of
the games. Agents joined by no chain of finished games are rated on separate scales (a note
says which). ``--json`` prints one object: ``{"agents": {"<name>": {"points_per_shot",
"foul_rate", "rating", "rating_se", "wins", "losses", "draws", "unfinished", "lost_on_own_shot"
(losses the agent's own shot ended: a keglebillard foul whose skæve took the opponent to 70),
"spec", ...}},
"win_rate": {"<a>": {"<b>": ..}}, "win_rate_ci": {"<a>": {"<b>": [low, high]}}, "draw_rate",
"unfinished": {"<a>": {"<b>": count}}, "notes": [...]}``; names are short (a model path becomes
its run directory's or file's name; ``spec`` keeps the full one). Otherwise a table is printed.
Both write ``<out>/results.json`` and ``<out>/tournament.png`` (default ``runs/eval/<game>/``);
A tournament's outputs replace an earlier one's in ``--out``: results.json, tournament.png
and the earlier game records in ``<out>/games/`` (removed after the new tournament has been
written; its own records, if any, are what that folder then holds).
``--save-games N`` also writes the first N games of each pair as game records to
``<out>/games/`` (replayable in ``python -m cuegym.play``, on the tournament's setting: the
record's ``options`` are the web table's for it, and off the default setting ``meta.table``
and ``meta.rules`` name it; ``--save-games`` on a setting the web table does not play, such as
the ``variant: ddbu`` rules, is refused before the games); a record's ``seed`` is its pair's
generator seed (``--seed`` + 1000 x the pair's index: replica round robins of P pairs need
seeds more than 1000 x (P - 1) apart, or they share games), which plays the pair's
``meta.games_per_pair`` games again (on ``make_arena(game, meta.rules, table=meta.table)``),
this one as ``meta.game_index``. ``--games`` is at most
:data:`MAX_GAMES` per pair, ``--episodes`` at most :data:`MAX_EPISODES`. Options of the
other mode (``--episodes``, ``--benchmark-out`` in a tournament; ``--games``, ``--max-shots``,
``--out``, ``--save-games``, ``--table``, ``--rules`` with ``--benchmark``) are refused, not
ignored, and so is an empty ``--out`` or ``--benchmark-out`` (not the default);
``--benchmark --game G`` benchmarks that game's Shot env only. The benchmark's table seeds
are drawn from ``--seed`` (:func:`benchmark_table_seed`), so benchmarks at different seeds
play independent positions.

Golfbillard: ``points_per_shot`` counts the shooter's own balls scored per stroke.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.cli_errors import (
    UsageError,
    check_writable_dir,
    checkout_path,
    cli_main,
    in_checkout,
    script_prog,
    seed_arg,
    write_atomic,
)
from cuegym.experiments.tournament_report import _plural, format_table, plot_results, rules_text
from cuegym.experiments.train_config import RULES_HELP, parse_rules


def split_specs(text: str) -> list[str]:
    """Split ``a,b:k=v,k2=v2,c`` into agent specs (a token with ``=`` but no ``:`` continues the
    options of the spec before it)."""
    out: list[str] = []
    for tok in filter(None, (t.strip() for t in text.split(","))):
        # an option's key is a name: 'runs/lr=3e-4/best_model.zip' is a model path of its own
        if (":" not in tok and re.fullmatch(r"[A-Za-z_]\w*", tok.partition("=")[0].strip())
                and "=" in tok and out and ":" in out[-1]):
            out[-1] += "," + tok
        else:
            out.append(tok)
    return out


def parse_agents(text: str, at_least: int = 2) -> list[str]:
    """:func:`split_specs`, at least ``at_least`` of them (a tournament two, a benchmark one)."""
    out = split_specs(text)
    if len(out) < at_least:
        raise ValueError(f"need at least {'two agents' if at_least == 2 else at_least}, got "
                         f"{out}")
    return out


def short_name(spec: str) -> str:
    """A short label for a spec: a model path (``.zip``, ``.pt``) becomes its file's stem, or
    its run directory's name for ``model.zip`` / ``best_model.zip`` (options after a colon are
    kept)."""
    name, sep, opts = spec.partition(":")
    if name.endswith((".zip", ".pt")):
        p = Path(name)
        stem = p.stem
        name = p.parent.name if stem in ("model", "best_model") and p.parent.name else stem
        if stem == "best_model":
            name += "*"
    return name + sep + opts


def display_names(specs: list[str]) -> list[str]:
    """Short, unique names for tables, JSON and figures (:func:`short_name`; repeats get #2,
    #3, ...)."""
    names: list[str] = []
    for s in specs:
        n = base = short_name(s)
        k = 1
        while n in names:  # a later '#2' may be a file's own name ('geometric#2.pt')
            k += 1
            n = f"{base}#{k}"
        names.append(n)
    return names


def _tournament_agents(game: str, specs: list[str], names: list[str], arena: Any,
                       notes: list[str]) -> list:
    """The agents of ``specs``; a note for each ``pretrained`` with no shipped agent of
    ``game`` (it resolves to the best available one)."""
    from cuegym.agents import make_agent

    agents = []
    for spec, name in zip(specs, names, strict=True):
        ag = make_agent(spec, game, arena=arena)
        if ag.name.startswith("pretrained="):
            notes.append(f"'{name}': no trained {game} agent is shipped; it resolves to the "
                         f"best available agent ({ag.name.split('=', 1)[1]})")
        agents.append(ag)
    return agents


def _play_pair(arena: Any, pair: tuple, games: int, seed: int, pair_seed: int, noise: Any,
               max_shots: int, quiet: bool, save_games: int, save_dir: Path | None,
               written: list[Path] | None = None) -> Any:
    """One pairing's ``games`` games (seeds from ``pair_seed``) as ``play_games``' result, with
    a progress bar on stderr unless ``quiet``; the first ``save_games`` saved as game records
    to ``save_dir`` (their paths appended to ``written``). ``pair``: (names, specs, agents),
    each a pair."""
    from tqdm.auto import tqdm

    from cuegym.agents import play_games

    (name_i, name_j), specs, agents = pair
    on = arena
    if save_games:
        from cuegym.play.record import RecordingArena, save_tournament_games

        on = RecordingArena(arena, save_games)
    with tqdm(total=games, desc=f"{name_i} vs {name_j}", unit="game", leave=True,
              disable=quiet, file=sys.stderr) as bar:
        res = play_games(on, list(agents), games, seed=pair_seed, noise=noise,
                         max_shots=max_shots,
                         progress=lambda done, _total, b=bar: b.update(done - b.n))
        a, b = res.stats(0), res.stats(1)
        bar.set_postfix_str(f"{a['wins']}-{b['wins']}, {a['draws']} drawn, "
                            f"{a['unfinished']} unfinished")
    if save_games:
        paths = save_tournament_games(on, res, (name_i, name_j), specs, noise, save_dir,
                                      f"{name_i}_vs_{name_j}")
        stamp_game_records(paths, seed, pair_seed, games, max_shots)
        if written is not None:
            written.extend(paths)
    return res


def tournament_arena(game: str, table: str | None = None,
                     rules: Mapping[str, Any] | None = None) -> Any:
    """The arena of a tournament of ``game`` on ``table`` (a table config name; None: the
    game's own, the kleinmatch for keglebillard) under ``rules`` (rule options over the
    shipped ones, :func:`~cuegym.experiments.train_config.parse_rules`; None: the shipped
    rules; golfbillard plays single games, ``match: single``, unless ``rules`` say ``match:
    best_of_3``). A bad table or rule option
    is a :class:`UsageError` naming the option and its value."""
    from cuegym.agents import make_arena
    from cuegym.agents.base import check_game

    check_game(game)  # (an unknown game read as a --rules error)
    kw = {} if table is None else {"table": table}
    if table is not None:
        try:
            make_arena(game, None, **kw)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"--table {table!r}: {exc}") from None
    try:
        return make_arena(game, None if rules is None else dict(rules), **kw)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--rules {rules_text(rules)}: {exc}") from None


def run_tournament(game: str, specs: list[str], games: int, seed: int, *,
                   noise: Any = "tournament", max_shots: int | None = None,
                   quiet: bool = False, save_games: int = 0,
                   save_dir: Path | None = None, table: str | None = None,
                   rules: Mapping[str, Any] | None = None,
                   written: list[Path] | None = None) -> dict[str, Any]:
    """Round robin: every pair plays ``games`` games (a progress bar per pair on stderr unless
    ``quiet``). Returns the results dictionary (keys in the module doc). ``save_games``: write
    the first that many games of each pair as game records (replayable in
    ``python -m cuegym.play``) to ``save_dir`` (their paths appended to ``written``).
    ``table``, ``rules``: the setting (:func:`tournament_arena`); the agents are made for it."""
    from cuegym.agents.ratings import rating_groups, wilson_interval
    from cuegym.play.record import arena_setting

    if not 1 <= games <= MAX_GAMES:
        raise UsageError(f"games must be in [1, {MAX_GAMES:,}] per pair, got {games}")
    _check_round_robin(specs, seed, save_games, save_dir)
    check_agent_names(specs)
    arena = tournament_arena(game, table, rules)
    if save_games:
        check_recordable(arena)  # before the games, which may take hours
    names = display_names(specs)
    notes: list[str] = []
    agents = _tournament_agents(game, specs, names, arena, notes)
    if max_shots is None:
        max_shots = 400 if game == "keglebillard" else 300
    n = len(agents)
    shots: dict[int, list] = {i: [] for i in range(n)}
    won = np.zeros((n, n))  # won[i, j]: games i won against j
    drawn = np.zeros((n, n))  # finished, nobody won
    cut = np.zeros((n, n))  # unfinished (cut off by max_shots)
    own_end = np.zeros(n, np.int64)  # losses ended by the loser's own shot
    t0 = time.time()
    for k, (i, j) in enumerate(itertools.combinations(range(n), 2)):
        pair = ((names[i], names[j]), (specs[i], specs[j]), (agents[i], agents[j]))
        res = _play_pair(arena, pair, games, seed, pair_seed(seed, k), noise, max_shots, quiet,
                         save_games, save_dir, written)
        a, b = res.stats(0), res.stats(1)
        for rec, ag in zip(res.shots, res.agent, strict=True):
            shots[(i, j)[ag]].append(rec)
        won[i, j], won[j, i] = a["wins"], b["wins"]
        drawn[i, j] = drawn[j, i] = a["draws"]
        cut[i, j] = cut[j, i] = a["unfinished"]
        own_end[[i, j]] += [a["lost_on_own_shot"], b["lost_on_own_shot"]]
    out_agents = _agent_table(names, specs, [ag.name for ag in agents], shots, won, drawn, cut,
                              own_end, games)
    finished = won + won.T + drawn
    others = {i: [j for j in range(n) if j != i] for i in range(n)}
    win_rate = {names[i]: {names[j]: _rate(won[i, j], finished[i, j]) for j in others[i]}
                for i in range(n)}
    ci = {names[i]: {names[j]: [_num(v, 4) for v in wilson_interval(won[i, j], finished[i, j])]
                     for j in others[i]} for i in range(n)}
    if cut.any():
        notes.append(f"{int(cut.sum() / 2)} game(s) reached --max-shots {max_shots} unfinished; "
                     "they count neither as wins nor as draws and are left out of the win and "
                     "draw rates and the ratings (the per-shot columns count every shot)")
    groups = rating_groups(finished)
    if len(groups) > 1:
        notes.append("no finished game joins " + " and ".join(
            "{" + ", ".join(names[i] for i in grp) + "}" for grp in groups) + ": their ratings "
            "are on separate scales (each group's mean 0) and compare only within a group")
    return {"game": game, **arena_setting(arena), "games_per_pair": games, "seed": seed,
            "noise": str(noise), "max_shots": max_shots, "agents": out_agents,
            "win_rate": win_rate, "win_rate_ci": ci,
            "draw_rate": {names[i]: {names[j]: _rate(drawn[i, j], finished[i, j])
                                     for j in others[i]} for i in range(n)},
            "unfinished": {names[i]: {names[j]: int(cut[i, j]) for j in others[i]}
                           for i in range(n)},
            "rating_method": "Bradley-Terry maximum likelihood, Elo scale (mean 0), draws half "
                             "a win, one virtual draw per pair",
            "notes": notes, "seconds": round(time.time() - t0, 1)}


def pair_seed(seed: int, k: int) -> int:
    """The seed of the round robin's ``k``-th pair (its games' seeds follow from it)."""
    return seed + 1000 * k


def _check_round_robin(specs: list[str], seed: int, save_games: int,
                       save_dir: Path | None) -> None:
    """The arguments :func:`run_tournament` reads only after some pairs have played: refused
    before the first game (a tournament may take hours)."""
    if len(specs) < 2:
        raise UsageError(f"a tournament needs at least two agents, got {list(specs)}")
    last = pair_seed(seed, math.comb(len(specs), 2) - 1)
    if last > 2**63 - 1:
        raise UsageError(f"seed (--seed) = {seed}: the last of the {math.comb(len(specs), 2)} "
                         f"pairs would play from seed {last}, beyond 2**63 - 1; give a smaller "
                         "one")
    if isinstance(save_games, bool) or not isinstance(save_games, int) or save_games < 0:
        raise UsageError(f"save_games must be an integer >= 0, got {save_games!r}")
    if save_games and save_dir is None:
        raise UsageError(f"save_games = {save_games} needs a save_dir to write the records to")


def _agent_table(names: list[str], specs: list[str], agent_names: list[str],
                 shots: dict[int, list], won: np.ndarray, drawn: np.ndarray, cut: np.ndarray,
                 own_end: np.ndarray, games: int) -> dict[str, dict[str, Any]]:
    """Each agent's row of the results (module doc): its shots' means, its Bradley-Terry
    rating and its games, from the round robin's (n, n) tallies ``won[i, j]`` (games i won
    against j), ``drawn`` and ``cut`` (unfinished), and ``own_end`` (n,) (losses its own shot
    ended)."""
    from cuegym.agents.ratings import bradley_terry

    n = len(names)
    rating, rating_se = bradley_terry(won + 0.5 * drawn)
    table = {}
    for i, nm in enumerate(names):
        recs = shots[i]

        def mean(key: str, recs=recs) -> float | None:  # no shot: no rate (not a clean one)
            return round(float(np.mean([getattr(r, key) for r in recs])), 4) if recs else None

        table[nm] = {
            "points_per_shot": mean("points"), "foul_rate": mean("foul"),
            "given_per_shot": mean("given"),
            "rating": _num(rating[i], 1), "rating_se": _num(rating_se[i], 1),
            "shots": len(recs), "games": int(games * (n - 1)), "wins": int(won[i].sum()),
            "losses": int(won[:, i].sum()), "draws": int(drawn[i].sum()),
            "unfinished": int(cut[i].sum()), "lost_on_own_shot": int(own_end[i]),
            "spec": specs[i], "agent": agent_names[i],
        }
    return table


def _num(v: float, nd: int) -> float | None:
    """A rounded float for JSON, None for NaN."""
    return None if not math.isfinite(v) else round(float(v), nd)


def _rate(k: float, n: float) -> float | None:
    return None if n == 0 else round(float(k / n), 4)


# ---------------------------------------------------------------------------------------------
# Benchmark: mean return per env id (docs/benchmarks.md)
# ---------------------------------------------------------------------------------------------

#: env ids of the benchmark page: the one-shot envs, where every agent sees the same positions
BENCH_ENVS = ("cuegym/KeglebillardShot-v0", "cuegym/GolfbillardShot-v0")
BENCH_AGENTS = ("random", "geometric", "planner", "guided", "pretrained", "expert")


def benchmark_table_seed(seed: int) -> int:
    """The first table's seed in a benchmark run at ``--seed seed`` (table t gets this + t):
    drawn from ``seed`` by numpy's SeedSequence, so that runs at different seeds play
    independent positions. With ``seed + t``, as before, ``--seed 1`` replayed 63 of the 64
    tables of ``--seed 0``, and replicas at neighbouring seeds were nearly the same sample."""
    return int(np.random.SeedSequence(seed).generate_state(1)[0]) % 2**31


def _env_game(env_id: str) -> str:
    if "Shot" not in env_id:
        raise ValueError(f"the benchmark plays the one-shot envs {list(BENCH_ENVS)}, not "
                         f"{env_id!r}")
    return "golfbillard" if "Golf" in env_id else "keglebillard"


def _bench_agent(game: str, spec: str) -> tuple[Any, Any]:
    """(arena, agent) of ``spec`` for ``game``'s benchmark."""
    from cuegym.agents import make_agent, make_arena

    arena = make_arena(game)
    return arena, make_agent(spec, game, arena=arena)


def episode_returns(env_id: str, spec: str, episodes: int, seed: int, *,
                    noise: Any = "tournament", n_envs: int = 64,
                    made: tuple[Any, Any] | None = None) -> np.ndarray:
    """Returns of ``episodes`` episodes of the Shot env ``env_id`` played by the agent ``spec``
    (the env's reward). Positions come from the env's bank, the same for every agent: table t
    of ``n_envs`` is seeded ``benchmark_table_seed(seed) + t`` at its first reset and plays
    its episodes in turn (the env's own stream goes on from there: the episodes after the
    first ``n_envs`` are not those of a fresh reset with the next seeds). The agent sees the
    rules state read back from the observation and its strikes enter the env as the env's own
    actions (``cuegym.agents.residual.env_actions``). ``made``: the (arena, agent) of
    ``spec`` made already (:func:`benchmark` makes every agent before the first episode)."""
    from cuegym.agents.residual import env_actions, golf_states_from_obs, kegle_states_from_obs
    from cuegym.envs import make_sb3_vec_env
    from cuegym.envs.config import load_settings

    game = _env_game(env_id)
    arena, agent = made if made is not None else _bench_agent(game, spec)
    agent.reset()
    settings = load_settings(game)  # once: env_actions would read the YAML every round
    venv = make_sb3_vec_env(env_id, n_envs=min(n_envs, episodes),
                            seed=benchmark_table_seed(seed), noise=noise)
    rng = np.random.default_rng(seed)
    from_obs = kegle_states_from_obs if game == "keglebillard" else golf_states_from_obs
    obs = venv.reset()
    ret = np.zeros(venv.num_envs)
    out: list[float] = []
    while len(out) < episodes:
        states = from_obs(obs, arena)
        act = env_actions(game, agent.act(states, rng), states, arena, settings)
        obs, r, done, _ = venv.step(act)
        ret += r
        out += ret[done].tolist()
        ret[done] = 0.0
    venv.close()
    return np.array(out[:episodes])


def benchmark(specs: list[str], episodes: int, seed: int, *, env_ids=BENCH_ENVS,
              noise: Any = "tournament", quiet: bool = False) -> list[dict[str, Any]]:
    """One row per (env id, agent): mean return and its 95 % interval (Student's t) over
    ``episodes``."""
    from tqdm.auto import tqdm

    from cuegym.agents.ratings import mean_interval

    rows = []
    jobs = [(e, s) for e in env_ids for s in specs]
    # every agent before the first episode: a bad spec is refused before hours of play
    made = {(e, s): _bench_agent(_env_game(e), s) for e, s in jobs}
    for env_id, spec in tqdm(jobs, desc="benchmark", unit="agent", disable=quiet,
                             file=sys.stderr):
        t0 = time.time()
        r = episode_returns(env_id, spec, episodes, seed, noise=noise, made=made[env_id, spec])
        m, lo, hi = mean_interval(r, student=True)  # t: --episodes may be as few as 2
        rows.append({"env_id": env_id, "agent": spec, "episodes": int(r.size),
                     "mean_return": round(m, 4), "ci95": [round(lo, 4), round(hi, 4)],
                     "seconds": round(time.time() - t0, 1)})
    return rows


def benchmark_markdown(rows: list[dict[str, Any]], command: str, noise: Any) -> str:
    """The benchmark page (model-zoo style: one table per env id)."""
    lines = ["# Benchmarks: mean return per env id", "",
             "Written by `" + command + "` (`experiments/evaluate.py --benchmark`). Each agent "
             "plays the same positions of the env's bank (table seeds drawn from --seed) with "
             f"`noise={noise}`; one episode is one shot, its return the env's reward (see "
             "docs/envs.md) without any wrapper's shaping: golfbillard strokes mostly score "
             "nothing, so its returns separate agents weakly (whole games: the tournament "
             "tables in docs/agents.md). The interval is the 95 % interval of the mean with "
             "Student's t (n - 1 degrees of freedom). "
             "Timings were taken on a shared 2-core machine and are noisy.", ""]
    for env_id in dict.fromkeys(r["env_id"] for r in rows):
        lines += [f"## {env_id}", "",
                  "| agent | mean return | 95 % interval | episodes | seconds |",
                  "|---|---:|---|---:|---:|"]
        for r in sorted((r for r in rows if r["env_id"] == env_id),
                        key=lambda r: -r["mean_return"]):
            lo, hi = r["ci95"]
            lines.append(f"| `{r['agent']}` | {r['mean_return']:+.4f} | [{lo:+.4f}, {hi:+.4f}]"
                         f" | {r['episodes']} | {r['seconds']:.0f} |")
        lines.append("")
    return "\n".join(lines)


#: most games per pair: a pair's games are played at once (lock-step), their states and every
#: shot's record in memory (10,000 keglebillard games hold about 600,000 shot records)
MAX_GAMES = 10_000
#: most --benchmark episodes per agent and env id (the default is 256; 100,000 give an interval
#: 20 times narrower, and a searching agent needs hours for them)
MAX_EPISODES = 100_000
#: the tournament's options that a --benchmark would ignore, and the reverse
TOURNAMENT_ONLY = ("games", "max_shots", "out", "save_games", "table", "rules")
BENCHMARK_ONLY = ("episodes", "benchmark_out")


def check_agent_names(specs: list[str]) -> None:
    """Refuse a malformed agent option, such as ``name=`` without a label: one line naming the
    spec, before any agent is made (not an AttributeError after)."""
    from cuegym.agents import parse_options

    for spec in specs:
        try:
            parse_options(spec)
        except ValueError as exc:
            raise UsageError(f"agent {spec!r}: {exc}") from None


def check_recordable(arena: Any) -> None:
    """``--save-games`` on ``arena``'s setting: a :class:`UsageError` when the web table
    (``python -m cuegym.play``) could not replay its games (:func:`cuegym.play.record.web_table`),
    found before the games rather than after them."""
    from cuegym.play.record import web_table
    from cuegym.play.session import PlayError

    try:
        web_table(arena)
    except PlayError as exc:
        raise UsageError(f"--save-games: {exc}") from None


def stamp_game_records(paths: list[Path], seed: int, pair_seed: int, games: int,
                       max_shots: int | None) -> None:
    """Write into saved game records the seed that reproduces them: ``seed`` is the pair's
    generator seed (``play_games(arena, agents, games, seed=pair_seed, ...)`` plays the pair's
    games at once, this one as ``meta.game_index``); ``meta`` also gets the tournament's
    ``--seed``, ``games_per_pair`` and ``max_shots``."""
    import os

    for path in paths:
        rec = json.loads(path.read_text())
        rec["seed"] = int(pair_seed)
        rec["meta"] = {**(rec.get("meta") or {}), "tournament_seed": int(seed),
                       "pair_seed": int(pair_seed), "games_per_pair": int(games),
                       "max_shots": max_shots}
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(rec))
        os.replace(tmp, path)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=("keglebillard", "golfbillard"),
                   help="the game (default keglebillard); with --benchmark: only its Shot env "
                   "(default both)")
    p.add_argument("--agents", help="comma-separated agents: names (options after ':') or "
                   "model .zip paths (default: pretrained,geometric,random; with --benchmark "
                   f"{','.join(BENCH_AGENTS)}); a tournament needs two or more, a benchmark "
                   "one or more")
    p.add_argument("--games", type=int, help=f"games per pair of agents (default 100, at most "
                   f"{MAX_GAMES:,}: a pair's games are played at once, in memory)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seeds the games (pair k's "
                   "generator is SEED + 1000 k; seats alternate), or the benchmark's positions "
                   "(default 0)")
    p.add_argument("--noise", default="tournament",
                   help="shot noise: tournament, none, or a scale factor of the tournament noise "
                   "(default tournament)")
    p.add_argument("--max-shots", type=int, help="shots after which a game is cut off "
                   "(reported as unfinished; default 400 keglebillard, 300 golfbillard)")
    p.add_argument("--table", help="the table, a table config name (configs/tables): "
                   "keglebillard (the kleinmatch, the default) or keglebillard-helmatch; "
                   "golfbillard has one, golfbillard")
    p.add_argument("--rules", nargs="+", action="extend", metavar="KEY=VALUE|FILE",
                   help=RULES_HELP + " (golfbillard plays single games unless "
                   "match=best_of_3)")
    p.add_argument("--out", help="output directory (default runs/eval/<game>)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bars on stderr")
    p.add_argument("--save-games", type=int, metavar="N",
                   help="save the first N games of each pair as game records in <out>/games/ "
                        "(open them in python -m cuegym.play; a record's seed is its pair's "
                        "generator seed, meta.game_index its place in the pair's games)")
    p.add_argument("--benchmark", action="store_true", help="instead of a tournament: mean "
                   "return of each agent on each Shot env id, written as markdown ("
                   + ", ".join(f"--{k.replace('_', '-')}" for k in TOURNAMENT_ONLY)
                   + " are the tournament's and refused here)")
    p.add_argument("--episodes", type=int, help="--benchmark: episodes per agent and env id "
                   "(default 256)")
    p.add_argument("--benchmark-out",
                   help="--benchmark: the markdown page to write (default docs/benchmarks.md "
                        "of the checkout cuegym runs from; an installed cuegym: "
                        "runs/benchmarks.md under the working directory)")
    return p


def _benchmark_cli(p: argparse.ArgumentParser, args: argparse.Namespace, specs: list[str],
                   argv: list[str] | None) -> int:
    """``--benchmark``: the mean returns of ``specs`` on the Shot env ids, as markdown."""
    episodes = 256 if args.episodes is None else args.episodes
    if not 2 <= episodes <= MAX_EPISODES:
        p.error(f"--episodes must be in [2, {MAX_EPISODES:,}], got {episodes:,}")
    # an installed cuegym writes under runs/, as its other outputs: the working directory's
    # own docs/benchmarks.md is the user's
    default_out = (checkout_path("docs", "benchmarks.md") if in_checkout()
                   else Path("runs", "benchmarks.md"))
    bench_out = Path(default_out if args.benchmark_out is None else args.benchmark_out)
    if bench_out.is_dir():  # found now, not when the page is written after the benchmark
        p.error(f"--benchmark-out {args.benchmark_out!r} is a folder: give the markdown file")
    check_writable_dir(bench_out.parent, "--benchmark-out", bench_out)
    env_ids = [e for e in BENCH_ENVS if args.game is None or
               ("Golf" in e) == (args.game == "golfbillard")]
    rows = benchmark(specs, episodes, args.seed, env_ids=env_ids, noise=args.noise,
                     quiet=args.quiet)
    prog = "python experiments/evaluate.py" if in_checkout() else p.prog
    cmd = prog + " --benchmark " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a != "--benchmark")
    text = benchmark_markdown(rows, cmd.strip(), args.noise)
    bench_out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(bench_out, text)
    print(json.dumps(rows) if args.json else f"{text}\nwrote {bench_out}")
    return 0


def _tournament_cli(p: argparse.ArgumentParser, args: argparse.Namespace,
                    specs: list[str]) -> int:
    """A tournament between ``specs``: results.json, the table and its plot under --out."""
    game = args.game or "keglebillard"
    games = 100 if args.games is None else args.games
    if not 1 <= games <= MAX_GAMES:
        p.error(f"--games must be in [1, {MAX_GAMES:,}] (a pair's games are played at once, "
                f"in memory), got {games}")
    if args.max_shots is not None and args.max_shots < 1:
        p.error(f"--max-shots must be >= 1, got {args.max_shots}")
    save_games = args.save_games or 0
    if save_games < 0:
        p.error(f"--save-games must be >= 0, got {save_games}")
    if args.table is not None and not args.table.strip():
        p.error(f"--table {args.table!r}: give a table (an empty one is not the default)")
    try:
        rules = parse_rules(args.rules)
        arena = tournament_arena(game, args.table, rules)  # found now, not after the agents
        if save_games:
            check_recordable(arena)
    except UsageError as exc:
        p.error(str(exc))
    out = Path(args.out) if args.out is not None else Path("runs") / "eval" / game
    check_writable_dir(out, "--out")  # before the games, which may take hours
    for name in ("results.json", "tournament.png"):  # found now, not after the games
        if (out / name).is_dir():
            p.error(f"--out {str(out)!r}: {out / name} is a folder, where the tournament "
                    "writes a file")
    if save_games:
        check_writable_dir(out / "games", "--save-games")
    earlier = earlier_records(out / "games")
    written: list[Path] = []
    res = run_tournament(game, specs, games, args.seed, noise=args.noise,
                         max_shots=args.max_shots, quiet=args.quiet,
                         save_games=save_games, save_dir=out / "games", table=args.table,
                         rules=rules, written=written)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "results.json", json.dumps(res, indent=1))
    png = plot_results(res, out / "tournament.png")
    replaced = drop_earlier_records(earlier, written)
    if args.json:
        print(json.dumps(res))
    else:
        print(format_table(res))
        print(f"\nwrote {out / 'results.json'} and {png}" + (
            f"; removed {_plural(replaced, 'game record')} of an earlier tournament from "
            f"{out / 'games'}" if replaced else ""))
    return 0


def earlier_records(games_dir: Path) -> list[Path]:
    """The game records an earlier tournament saved in ``games_dir``: ``<pair>_game<N>.json``
    files that read as a tournament's records (``format: cuegym-game`` with the
    ``meta.tournament_seed`` evaluate stamps). A new tournament's outputs replace the earlier
    one's (results.json, the figure and these records, which would otherwise replay games of
    another tournament beside this one's); other files there are the user's and stay."""
    if not games_dir.is_dir():
        return []
    out = []
    for f in sorted(games_dir.glob("*_game*.json")):
        if not (f.is_file() and re.fullmatch(r".+_game\d{3,}\.json", f.name)):
            continue
        try:
            rec = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict) and rec.get("format") == "cuegym-game" and \
                isinstance(rec.get("meta"), dict) and "tournament_seed" in rec["meta"]:
            out.append(f)
    return out


def drop_earlier_records(earlier: list[Path], written: list[Path]) -> int:
    """Delete the records of :func:`earlier_records` that this tournament did not write
    (``written``: the paths it saved); returns how many."""
    keep = {Path(p).resolve() for p in written}
    gone = 0
    for f in earlier:
        if f.resolve() not in keep:
            f.unlink(missing_ok=True)
            gone += 1
    return gone


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = _parser()
    args = p.parse_args(argv)
    for opt, v in (("--out", args.out), ("--benchmark-out", args.benchmark_out)):
        if v is not None and not v.strip():  # '' would silently mean the default path
            p.error(f"{opt} {v!r}: give a {'folder' if opt == '--out' else 'file'} (an empty "
                    "one is not the default)")
    mode, other = ("--benchmark", TOURNAMENT_ONLY) if args.benchmark else \
        ("a tournament", BENCHMARK_ONLY)
    ignored = [f"--{k.replace('_', '-')}" for k in other if getattr(args, k) is not None]
    if ignored:
        them, are = ("them", "they are") if len(ignored) > 1 else ("it", "it is")
        p.error(f"{', '.join(ignored)}: {mode} would ignore {them} ({are} for "
                f"{'a tournament' if args.benchmark else '--benchmark'})")
    if args.agents is not None:
        specs = split_specs(args.agents)
        if len(specs) < (1 if args.benchmark else 2):
            p.error(f"--agents {args.agents!r}: {mode} needs at least "
                    f"{'one agent' if args.benchmark else 'two agents'}, got {len(specs)}")
    else:
        specs = list(BENCH_AGENTS) if args.benchmark else ["pretrained", "geometric", "random"]
    check_agent_names(specs)
    from cuegym.games.noise import check_noise_option

    check_noise_option(args.noise)  # before any game (a tournament may take hours)
    if args.benchmark:
        return _benchmark_cli(p, args, specs, argv)
    return _tournament_cli(p, args, specs)


if __name__ == "__main__":
    sys.exit(main())
