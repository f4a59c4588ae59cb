"""cuegym.play: a browser table where people play keglebillard and golfbillard against the AI,
watch agents play and replay saved games (``python -m cuegym.play``; docs/play.md).

Modules: :mod:`~cuegym.play.session` (the one adapter to the rules, physics and agents),
:mod:`~cuegym.play.match` (a game: seats, turns, history), :mod:`~cuegym.play.record` (game
records, tournament recording), :mod:`~cuegym.play.call` (the referee's call in words),
:mod:`~cuegym.play.server` (the FastAPI app; needs the ``web`` extra), ``static/`` (the page).
"""
