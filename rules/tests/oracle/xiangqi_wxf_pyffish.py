"""Fairy-Stockfish (pyffish) checks WXF xiangqi PGN files: the real-game
corpus check (cli/tests/real_games_oracle.rs).

Usage: xiangqi_wxf_pyffish.py FILE.pgn [FILE.pgn ...] < MOVES.json

MOVES.json holds, per file, the moves boardcast read from each game (ICCS,
ranks 0-9). For every game, Fairy-Stockfish replays those moves from the
game's start (the `FEN` tag, else the standard position) and names each in
WXF (`get_san_moves`, `NOTATION_XIANGQI_WXF`); it takes only a move in its
list of legal moves and raises on any other, so a game with an illegal
move stops the script with a non-zero exit naming file, game and ply.
Every WXF token of the record, read from the text here (tags, move
numbers, result), must be Fairy-Stockfish's name for the move (`.` and `=`
are the same sideways sign). Two pieces of a kind on one file: WXF writes
`+`/`-` for the front and rear one, Fairy-Stockfish writes the file
instead when the other piece could not make the same step (its
`disambiguation_level`), so such a token is checked here for the right
front/rear piece and compared in its file form (counted in
`tandem_as_file`). So the record's text names exactly a legal game.

Prints one JSON document: per game, the result token and `Result` tag, the
final FEN, the number of legal moves there and whether the side to move is
in check. One pyffish call per game and ply list (a call costs about a
millisecond), so 300 games take a few seconds.

    pip install pyffish==0.0.90
"""
import json
import re
import sys

import pyffish as sf

from xiangqi_common import board_of, games_of, tandem_as_file, to_fs

VARIANT = "xiangqi"
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def main():
    ours = json.load(sys.stdin)
    out, tandem, plies = [], 0, 0
    for path, moves_of in zip(sys.argv[1:], ours):
        with open(path, encoding="utf-8") as f:
            games = games_of(f.read())
        if len(games) != len(moves_of):
            raise SystemExit(f"{path}: {len(games)} records, boardcast read {len(moves_of)}")
        for gi, ((tags, tokens, _), moves) in enumerate(zip(games, moves_of)):
            where = f"{path} game {gi + 1}"
            start = tags.get("FEN", sf.start_fen(VARIANT))
            texts, result = [], None
            for tok in tokens:
                if tok in RESULTS:
                    result = tok
                    break
                if not re.match(r"^\d+\.(\.\.)?$", tok):
                    texts.append(tok)
            if len(texts) != len(moves):
                raise SystemExit(f"{where}: {len(texts)} WXF tokens, boardcast read {len(moves)} moves")
            fs_moves = [to_fs(m) for m in moves]
            try:
                names = sf.get_san_moves(VARIANT, start, fs_moves, False, sf.NOTATION_XIANGQI_WXF)
            except ValueError as error:
                # Find the first move Fairy-Stockfish does not take.
                ply = next(
                    i for i in range(len(fs_moves))
                    if not _plays(start, fs_moves[: i + 1])
                )
                raise SystemExit(f"{where} ply {ply + 1} ({texts[ply]}, {moves[ply]}): "
                                 f"not a legal move for Fairy-Stockfish: {error}")
            board = board_of(start)
            for pi, (tok, iccs, name) in enumerate(zip(texts, moves, names)):
                want = tok.replace(".", "=")
                if want != name:
                    if tandem_as_file(board, iccs, want) != name:
                        raise SystemExit(
                            f"{where} ply {pi + 1}: the record says {tok!r}, "
                            f"Fairy-Stockfish writes {name!r} for {iccs}"
                        )
                    tandem += 1
                f, t = (ord(iccs[0]) - 97, int(iccs[1])), (ord(iccs[2]) - 97, int(iccs[3]))
                board[t] = board.pop(f)
                plies += 1
            end = sf.get_fen(VARIANT, start, fs_moves)
            out.append(
                {
                    "file": path,
                    "result_tag": tags.get("Result"),
                    "result": result,
                    "end": end,
                    "moves_left": len(sf.legal_moves(VARIANT, end, [])),
                    "in_check": sf.gives_check(VARIANT, end, []),
                }
            )
    json.dump({"games": out, "plies": plies, "tandem_as_file": tandem}, sys.stdout)


def _plays(start, moves):
    try:
        sf.get_san_moves(VARIANT, start, moves, False, sf.NOTATION_XIANGQI_WXF)
        return True
    except ValueError:
        return False


if __name__ == "__main__":
    main()
