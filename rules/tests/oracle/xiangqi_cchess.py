"""Independent checker for xiangqi moves (tests/draughts_xiangqi.rs).

Reads JSON from stdin: a list of games, each a list of [iccs id, FEN after]
as boardcast's events publish them. Plays every id with the `cchess` package
(pip install cchess), which must find it legal, and compares the placement
and side to move after it with the event's FEN. Prints the number of moves
checked; exits non-zero on the first disagreement.
"""
import json
import sys

import cchess


def main():
    games = json.load(sys.stdin)
    checked = 0
    for g, moves in enumerate(games, 1):
        board = cchess.ChessBoard(cchess.FULL_INIT_FEN)
        for ply, (iccs, fen) in enumerate(moves, 1):
            if not board.is_valid_iccs_move(iccs):
                raise SystemExit(f"game {g} ply {ply}: cchess finds {iccs} illegal in {board.to_fen()}")
            board.move_iccs(iccs)
            board.next_turn()
            theirs = board.to_fen().split()[:2]
            ours = fen.split()[:2]
            if theirs != ours:
                raise SystemExit(f"game {g} ply {ply}: after {iccs} cchess has {theirs}, boardcast {ours}")
            checked += 1
    print(checked)


if __name__ == "__main__":
    main()
