"""Independent reader for the draughts oracle test (rules/tests/draughts_oracle.rs).

Reads a PDN file with pydraughts (English variant) and prints, as JSON, for
every game and every ply: the legal moves before it (full paths), the path of
the move the PDN text names, and the FEN after it. The Rust test compares all
three with boardcast-rules (the legal-move lists for games from a FEN and every
LEGAL_EVERY-th game, as pydraughts needs ~5 ms a list; moves and FENs for
all). Any move pydraughts cannot play raises, and the script exits non-zero.

    pip install pydraughts==0.6.7

Known pydraughts 0.6.7 quirk, worked around here: for a game with a FEN tag
its PDN reader pairs the moves as in international draughts (it takes a FEN
with `B` to move as the second player's turn and mis-reads `1...`), so for
English games that start from a FEN the move list is taken from the
movetext directly (move numbers and the result dropped); pydraughts still
plays and checks every move.
"""
import json
import re
import sys

from draughts import Board, Move
from draughts.PDN import PDNReader


LEGAL_EVERY = 4


def movetext_moves(text):
    """Move tokens of one game's movetext (tags, numbers, result dropped)."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    tokens = [t for t in body.split() if not re.fullmatch(r"\d+\.+", t)]
    return [t for t in tokens if t not in ("2-0", "0-2", "1-1", "*", "1-0", "0-1", "1/2-1/2")]


def main(path):
    games = []
    with open(path, encoding="utf8") as f:
        texts = [t for t in re.split(r"\n\s*\n(?=\[)", f.read()) if t.strip()]
    read = PDNReader(filename=path).games
    if len(read) != len(texts):
        raise SystemExit(f"pydraughts read {len(read)} games, the file has {len(texts)}")
    for index, game in enumerate(read):
        if game.variant != "english":
            raise SystemExit(f"variant {game.variant!r}, expected english")
        fen = game.tags.get("FEN")
        board = Board(variant="english", fen=fen) if fen else Board(variant="english")
        moves = movetext_moves(texts[index]) if fen else game.moves
        plies = []
        for text in moves:
            legal = sorted(m.steps_move for m in board.legal_moves()) if fen or index % LEGAL_EVERY == 0 else None
            try:
                move = Move(board, pdn_move=text)
            except Exception as error:
                raise SystemExit(f"game {index + 1} ply {len(plies) + 1}: pydraughts cannot play {text!r} "
                                 f"in {board.fen}: {error!r}")
            board.push(move)
            plies.append({"text": text, "legal": legal, "played": move.steps_move, "fen": board.fen})
        games.append({"start": board.fens[0], "result": game.game_ending, "plies": plies})
    json.dump(games, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
