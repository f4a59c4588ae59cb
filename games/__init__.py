"""The game layer: the one place that plays a shot, for T tables at once.

Below the envs and the agents, above the physics (``cuegym.physics``) and the referees
(``cuegym.rules``). Envs, PettingZoo, arenas, the planner, demonstrations and position banks all
play shots through it; each rule, each reward term, the noise model and the strike type exist
once, here.

Shared by both games:

* :mod:`cuegym.games.strikes` -- :class:`~cuegym.games.strikes.Strikes`, the one strike type:
  ``cue_ball`` (T,), ``cue`` (T, 5) V0 [m/s], phi [deg], theta [deg], a, b [R], ``place``
  (T, 2) [m] (keglebillard ball in hand; NaN: none), ``validate()``.
* :mod:`cuegym.games.noise` -- :class:`~cuegym.games.noise.ShotNoise`, the one execution-noise
  model (presets in ``configs/envs/noise.yaml``; one convention for units, draws and clamps).

One module per game with the same shape of API (``G`` is the game object: rules, table and
their arrays, built once; every state is a batch):

.. code-block:: text

    G = Kegle(rules=None, table="keglebillard")      # golf: Golf(rules=None)
    states = G.new(T, n_players, first_player=...)   # batched state: a dataclass of arrays
                                                     #   with a leading table axis; .copy(),
                                                     #   .take(idx), .put(idx, other), len(),
                                                     #   states[t] / iteration: per-table values
    ok = G.legal_placement(states, place)            # (T,) bool  (keglebillard K-19)
    outcomes, next_states = G.play(states, strikes, noise, rng, active=None, ...)
                                                     # strikes: Strikes (T); noise: ShotNoise or
                                                     #   None; rng: a Generator or T of them
                                                     #   (one per table); active: (T,) bool, the
                                                     #   tables that shoot; outcomes: a dataclass
                                                     #   of (T, ..) arrays (.outcome(t): the
                                                     #   per-table JSON value); next_states: a
                                                     #   new batch
    outcomes, next_states = G.apply_log(states, log) # an already simulated log (JSON, tests)
    terms, reward = G.reward_terms(outcomes, weights, viewer=None, result=None)
                                                     # each reward term once: dict name -> (T,)
                                                     #   from the shooter's side, or from player
                                                     #   viewer (T,); reward = sum(w * term)
    r = G.result(states, players)                    # (T,) +1 first .. -1 last, 0 while in
    obs = G.observe(states, players)                 # (T, obs_dim) float32
    G.batch([value, ...])                            # a batch from per-table JSON values

``play`` is noise (``ShotNoise.apply``) -> physics inputs -> one batched ``simulate`` ->
referee -> compiled game flow (numba kernels over the table axis; state copies are array
copies). Keglebillard: :mod:`cuegym.games.kegle` (states and outcomes in
:mod:`~cuegym.games.kegle_state`, kernels in :mod:`~cuegym.games.kegle_flow`, observation
layout in :mod:`~cuegym.games.kegle_obs`); its per-table values are the rules'
``GameState`` / ``ShotOutcome`` (``docs/rules_keglebillard.md``).
"""
