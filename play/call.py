"""The referee's call in words, from the outcome JSON of a shot (no game logic here).

Keglebillard outcomes are ``ShotOutcome.to_dict`` (docs/rules_keglebillard.md), golfbillard
ones ``GolfOutcome.to_json`` / ``OpeningOutcome.to_json`` (docs/rules_golfbillard.md). Each
function returns a list of short lines: the headline first. A golfbillard outcome does not say
how the game flow went on after the stroke (a G-5 no-progress draw, the next game of a best-of-3
match): :func:`golf_call` reads that from the game states before and after the stroke.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Keglebillard fouls by rule id (docs/rules_keglebillard.md).
KEGLE_FOULS = {
    "K-10": "no ball touched a cushion",
    "K-11": "the red touched no white",
    "K-12": "the red went into the pins before a cushion or a white",
    "K-13": "the red toppled a pin after touching a white or cushion (nakket ind)",
    "K-14": "the red was pocketed",
    "K-14a": "a ball left the table",
    "K-15": "the red was placed in front of the salvo line",
    "K-16": "behaviour foul",
    "K-19": "the red cannot be placed there",
    "K-25": "DDBU visit rule",
}

#: Golfbillard fouls by rule id (docs/rules_golfbillard.md).
GOLF_FOULS = {
    "G-2": "struck a ball that is not the side's own",
    "G-8": "own ball into the own defence goal",
    "G-10": "hard or raised-cue stroke from below the stroke line",
    "G-11": "stroke along the long-cushion strip",
    "G-12": "the cue ball struck an own ball first",
    "G-13": "pushed into a frozen ball or cushion",
    "G-14": "own ball left in the defence triangle for the whole turn",
    "G-15": "blocking in the great attack triangle",
    "G-16": "own ball off the table",
    "G-17": "opponent's ball off the table",
    "G-18": "behaviour foul",
    "G-19": "ball jammed in the defence goal",
    "G-21": "kader play: a ball did not leave its kader",
}

#: Consequence letters (docs/rules_golfbillard.md).
LETTERS = {
    "LT": "turn lost",
    "RA": "every ball the stroke moved goes back",
    "CS": "the cue ball goes to a penalty spot",
    "SPOT": "the named balls go to penalty spots",
    "GOAL": "the opponent's balls go into their goal",
    "PICK": "the opponent picks a ball for a penalty spot",
}

SIDES = ("white", "red")

#: The consequence letters in the rule book's order (LT RA RF CS SPOT GOAL PICK).
_LETTER_ORDER = ("LT", "RA", "RF", "CS", "SPOT", "GOAL", "PICK")


#: Verbs in the calls, third person singular -> plural ("You score", "White 1 & White 2 score").
_PLURAL = {"has": "have", "wins": "win", "scores": "score", "pockets": "pocket",
           "reaches": "reach", "finishes": "finish", "keeps": "keep", "takes": "take",
           "plays": "play", "chooses": "choose", "scored": "scored", "leads": "lead",
           "picks": "pick"}


def plural(name: str) -> bool:
    """Does ``name`` take a plural verb? The person called "You" and a duo side ("A & B")."""
    return name == "You" or " & " in name


def verb(name: str, v: str) -> str:
    """``v`` (third person singular) agreeing with ``name``: "You score", "Ann scores"."""
    return _PLURAL.get(v, v) if plural(name) else v


def said(name: str, v: str) -> str:
    """``name`` and its verb: "You score", "Ann scores"."""
    return f"{name} {verb(name, v)}"


def _opening_reason(reason: str, names: Sequence[str]) -> str:
    """An opening reason (rules' text names sides by number) with the sides' names:
    "side 0 lost the opening (its ball ...)" -> "Ann lost the opening (their ball ...)"."""
    m = re.search(r"\bside ([01])\b", reason)
    if m is None or int(m.group(1)) >= len(names):
        return reason
    you = names[int(m.group(1))] == "You"

    def word(k: re.Match) -> str:
        if k.group(1) is not None:  # "side N's"
            name = names[int(k.group(1))]
            return "your" if name == "You" else f"{name}'s"
        if k.group(2) is not None:  # "side N"
            return names[int(k.group(2))]
        if k.group(0) == "its":
            return "your" if you else "their"
        return "you" if you else "they"

    # One pass over the rules' text: the names put in are never rewritten again (a name
    # "Fix it" or "side 1" stays as typed).
    return re.sub(r"\bside ([01])'s\b|\bside ([01])\b|\bits\b|\bit\b", word, reason)


def _skaeve(o: dict, names: Sequence[str]) -> str:
    """Who gets a foul's skæve: "skæve 6 to Bob"; with several recipients each gets it in full
    (K-17), "skæve 6 each to Bob and Cy" (not "6 to Bob, Cy", which reads as 6 shared)."""
    to = [names[i] for i in o["skaeve_to"]]
    if len(to) < 2:
        return f"skæve {o['skaeve']} to {', '.join(to)}"
    return f"skæve {o['skaeve']} each to {', '.join(to[:-1])} and {to[-1]}"


def kegle_call(o: dict, names: Sequence[str]) -> list[str]:
    """The call of one keglebillard shot; ``names``: the players' names by id."""
    who = names[o["shooter"]]
    lines = []
    if not o["played"]:
        lines.append(f"{who}: K-19 the red cannot be placed there — no shot, "
                     f"{_skaeve(o, names)}")
    elif o["win"]:
        lines.append(f"{said(who, 'pockets')} all three balls: {verb(who, 'wins')} the game "
                     "(K-20)")
    elif o["foul"]:
        lines.append(f"{who}: foul — {_skaeve(o, names)} "
                     f"(points {o['points']} + penalty {o['penalty']})")
    else:
        lines.append(f"{said(who, 'scores')} {o['shooter_points']} point"
                     f"{'' if o['shooter_points'] == 1 else 's'}")
    for f in o["fouls"]:
        rid, _, detail = f.partition(":")
        text = KEGLE_FOULS.get(rid, "foul")
        lines.append(f"{rid}{' ' + detail if detail else ''}: {text}")
    bonus = []
    if o.get("rodt"):
        bonus.append("rødt (K-8)")
    if o.get("blegt"):
        bonus.append("blegt (K-8)")
    if o.get("king_alone"):
        bonus.append("king alone (K-6)")
    if o.get("clean16"):
        bonus.append("clean 16 (K-7)")
    if o.get("pins_toppled"):
        n = len(o["pins_toppled"])
        bonus.append(f"{n} pin{'s' if n != 1 else ''} down")
    if o.get("whites_pocketed"):
        bonus.append("pocketed: " + ", ".join(o["whites_pocketed"]))
    if bonus:
        lines.append(", ".join(bonus))
    if o.get("whites_waiting"):
        lines.append("waiting for a free spot (K-18): " + ", ".join(o["whites_waiting"]))
    if o.get("ball_in_hand") and not o.get("game_over"):
        where = "behind the salvo line" if o["ball_in_hand"] == "salvo" else "anywhere"
        lines.append(f"{said(names[o['next_player']], 'has')} the red in hand, {where} (K-19)")
    for p in o.get("finished") or []:
        if not o.get("game_over"):
            lines.append(f"{said(names[p], 'reaches')} the distance and "
                         f"{verb(names[p], 'finishes')} (K-21)")
    if o.get("game_over") and o.get("ranking"):
        lines.append("game over — " + ", ".join(f"{k + 1}. {names[p]}"
                                                for k, p in enumerate(o["ranking"])))
    elif o.get("next_player") is not None and o["next_player"] == o["shooter"] \
            and o["played"]:
        lines.append(f"{said(who, 'keeps')} the turn (K-25)")
    return lines


def _penalty(letters: Sequence[str]) -> str:
    """The penalised foul's consequences, in the rule book's order (LT, RA, CS, ...)."""
    order = sorted(letters, key=lambda c: (_LETTER_ORDER.index(c) if c in _LETTER_ORDER
                                           else len(_LETTER_ORDER), c))
    return "penalty: " + "; ".join(LETTERS.get(c, c) for c in order)


def _side(w: object) -> int | None:
    """A game or match winner as the state JSON gives it: 0, 1, else None (a draw, none)."""
    return w if isinstance(w, int) and not isinstance(w, bool) and w in (0, 1) else None


def _game_end(o: dict, names: Sequence[str], before: dict | None,
              after: dict | None) -> list[str] | None:
    """The lines saying how the game (and the match) ended with this stroke, or None when it
    goes on. Without ``after`` only the outcome's own game end (G-4, G-17a) is known; with it,
    also a G-5 no-progress draw (decided when the turn ends, after the referee's outcome) and
    whether a best-of-3 match goes on (G-4)."""
    if after is None:
        if not o.get("game_over"):
            return None
        w = _side(o.get("winner"))
        return ["game over — " + ("draw" if w is None else said(names[w], "wins"))]
    match = after.get("match") or {}
    over = after.get("phase") == "over"
    game = match.get("game")
    was = ((before or {}).get("match") or {}).get("game")
    if isinstance(was, int) and isinstance(game, int):
        new_game = was != game
    else:  # a play stroke that ended a game leaves the next one at its stroke 0
        new_game = not o.get("opening") and after.get("stroke") == 0
    if not (over or new_game or o.get("game_over")):
        return None
    if not isinstance(game, int) or isinstance(game, bool):
        game = 0
    won = match.get("games_won") or [0, 0]
    w = after.get("winner")
    if w is None:  # not in the state: the stroke's own result
        w = o.get("winner")
    w = _side(w)  # None: a G-5 draw (the state's "draw")
    n = game + 1 if over else game  # the game that ended, from 1
    draw = "draw (G-5, no progress)"
    if over and n <= 1:  # a one-game match
        return ["game over — " + (draw if w is None else said(names[w], "wins"))]
    g0, g1 = (int(x) for x in won[:2])
    if w is None:
        lead = f"games {g0}-{g1}" if g0 == g1 else \
            f"{said(names[0 if g0 > g1 else 1], 'leads')} {max(g0, g1)}-{min(g0, g1)}"
        lines = [f"game {n} drawn (G-5, no progress), {lead}"]
    else:
        lines = [f"{said(names[w], 'wins')} game {n} ({won[w]}-{won[1 - w]})"]
    if over:
        mw = _side(match.get("winner"))
        lines.append("game over — " + (f"the match is drawn ({g0}-{g1})" if mw is None else
                                       f"{said(names[mw], 'wins')} the match "
                                       f"({won[mw]}-{won[1 - mw]})"))
    else:
        lines.append(f"game {n + 1} starts")
    return lines


def golf_call(o: dict, names: Sequence[str], before: dict | None = None,
              after: dict | None = None) -> list[str]:
    """The call of one golfbillard stroke or opening; ``names``: the two sides' names;
    ``before``, ``after``: the game states (``GolfState.to_json``) before and after the stroke,
    which tell a G-5 draw and a match that goes on to its next game (without them the call
    says only what the outcome says)."""
    end = _game_end(o, names, before, after)
    if o.get("opening"):
        lines = [f"opening (G-3): {_opening_reason(o['reason'], names)}"]
        for f in o.get("fouls", []):
            lines.append(f"{f['rule']} {f['kind']}: {f.get('detail', '')}")
        if o.get("scored_balls"):
            lines.append("scored: " + ", ".join(o["scored_balls"]))
        for sp in o.get("spotted", []):
            lines.append(f"{sp['ball']} to penalty spot {sp['spot']}")
        if o.get("into_goal"):
            lines.append("into their goal: " + ", ".join(o["into_goal"]))
        if end:
            lines.extend(end)
        elif o.get("first") is not None:
            lines.append(f"{said(names[o['first']], 'takes')} the first turn")
        return lines
    s = o["shooter"]
    who = names[s]
    own, opp = o["scored"][s], o["scored"][1 - s]
    if o["foul"]:
        head = f"{who}: foul {o['foul']} — {GOLF_FOULS.get(o['foul'], 'foul')}"
    elif own:
        head = f"{said(who, 'scores')} {own} ball{'s' if own != 1 else ''}: " + ", ".join(
            b for b in o["scored_balls"])
    else:
        head = f"{who}: no goal"
    lines = [head]
    for f in o["fouls"]:
        if f["rule"] != o["foul"] or f.get("detail"):
            lines.append(f"{f['rule']}: {f.get('detail') or GOLF_FOULS.get(f['rule'], '')}")
    if o["consequences"]:
        lines.append(_penalty(o["consequences"]))
    if opp:
        lines.append(f"{opp} ball{'s' if opp != 1 else ''} scored for {names[1 - s]}")
    # G-26: in kader play a fouling cue ball that lay on a penalty spot moves on to the next
    # spot by rule, with no choice; every other placement is G-30's
    on_spot_before = (before or {}).get("on_spot") or {}
    g26 = o["cue_ball"] if o["foul"] and o.get("kader") and on_spot_before.get(o["cue_ball"]) \
        else None
    for sp in o["spotted"]:
        where = f"penalty spot {sp['spot']}" if sp["spot"] else "the free point nearest spot 3"
        lines.append(f"{sp['ball']} to {where} ({'G-26' if sp['ball'] == g26 else 'G-30'})")
    # RA then CS (or SPOT): a ball sent on to a penalty spot or into its goal did not stay
    # where it lay
    moved_on = {sp["ball"] for sp in o["spotted"]} | set(o["into_goal"])
    back = [b for b in o["replaced"] if b not in moved_on]
    if back:
        lines.append("put back: " + ", ".join(back))
    if o["into_goal"]:
        lines.append("into their goal: " + ", ".join(o["into_goal"]))
    if o["kader"]:
        left = o.get("left_kader")
        lines.append("kader play (G-20)" + ("" if left is None else
                                           f": a ball {'left' if left else 'did not leave'} "
                                           "its kader (G-21)"))
    if end:
        lines.extend(end)
        return lines
    if o["turn_kept"] and not o["duty_met"]:
        lines.append("the defence-triangle duty (G-14) is still open")
    lines.append(f"{said(who, 'plays')} again (G-1)" if o["turn_kept"] else
                 f"turn passes to {names[1 - s]}")
    return lines


def golf_question_call(o: dict | None, names: Sequence[str], chooser: str,
                       question: dict) -> list[str]:
    """What the page shows while the opponent chooses (G-25, G-30): the foul that gives the
    choice, its penalty, and who is asked what. ``o``: the stroke's outcome as the shipped
    policies would have placed the balls (only what does not depend on the answer is said),
    or None; ``chooser``: the name of the person asked."""
    lines = []
    if o is not None and not o.get("opening"):
        s = o["shooter"]
        lines.append(golf_call(o, names)[0])  # the headline: the foul (or the goals)
        for f in o["fouls"]:
            if f["rule"] != o["foul"] or f.get("detail"):
                lines.append(f"{f['rule']}: {f.get('detail') or GOLF_FOULS.get(f['rule'], '')}")
        if o["consequences"]:
            lines.append(_penalty(o["consequences"]))
        opp = o["scored"][1 - s]
        if opp:
            lines.append(f"{opp} ball{'s' if opp != 1 else ''} scored for {names[1 - s]}")
    # "W chooses a penalty spot for r2 (G-30)", "You pick ...": the question as a sentence
    # about who answers it (as the page's turn line says it)
    ask, _, rest = question["text"].partition(" ")
    lines.append(f"{said(chooser, ask + 's')} {rest}" if ask in ("choose", "pick") and rest
                 else f"{chooser}: {question['text']}")
    return lines
