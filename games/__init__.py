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
    states = G.new(T, n_players, ...)                # batched state: a dataclass of arrays
                                                     #   with a leading table axis; .copy(),
                                                     #   .take(idx), .put(idx, other), len()
    ok = G.legal_placement(states, place)            # (T,) bool  (keglebillard K-19)
    outcomes, next_states = G.play(states, strikes, noise, rng)
                                                     # strikes: Strikes (T); noise: ShotNoise;
                                                     #   rng: a Generator or T of them (one per
                                                     #   table); outcomes: a dataclass of (T, ..)
                                                     #   arrays; next_states: a new batch
    terms, reward = G.reward_terms(outcomes, weights, seat=None)
                                                     # each reward term once: dict name -> (T,)
                                                     #   and sum(weight * term)
    obs = G.observe(states, players)                 # (T, obs_dim) float32

``play`` is noise (``ShotNoise.apply``) -> physics inputs -> one batched ``simulate`` ->
referee -> compiled game flow (numba kernels over the table axis; state copies are array
copies). ``G.state(states, t)`` / ``G.batch([...])`` convert to and from the per-table JSON
value of the rules (``docs/rules_<game>.md``); agents read that value one table at a time.
"""
