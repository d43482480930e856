"""Independent readers of boardcast's xiangqi PGN (tests/xiangqi_oracle.rs).

Usage: xiangqi_pyffish.py WXF.pgn ICCS.pgn

The two files hold the same games, as boardcast writes them with WXF
movetext (`[Format "WXF"]`) and with ICCS movetext (`[Format "ICCS"]`).

1. cchess (`cchess.Game.read_from`, its own PGN reader, one game per file)
   reads each ICCS record: its moves (cchess checks each one is legal and
   stops at the first that is not) and its final position are reported.
2. Fairy-Stockfish (pyffish) writes the WXF of that move sequence
   (`get_san_moves`, `NOTATION_XIANGQI_WXF`), and every token of the WXF
   record, read from the text here (tags, move numbers, result), must be
   it (`.` and `=` are the same sideways sign). So the WXF text names
   exactly the moves cchess read. Two pieces of a kind on one file: WXF
   writes `+`/`-` for front and rear; Fairy-Stockfish writes the file
   instead when the other piece could not make the same step on the board
   (its `disambiguation_level`), so such a token is checked here for the
   right front/rear piece and compared in its file form (counted in
   `tandem_as_file`).
3. For every 20th game, Fairy-Stockfish's legal-move list and position
   after each ply; for every game, the final position, whether the side to
   move has a move and whether it is in check.

Prints one JSON document; exits non-zero when a token disagrees.
"""
import json
import os
import re
import sys
import tempfile

import cchess
import pyffish as sf

from xiangqi_common import board_of, games_of, tandem_as_file, to_fs

VARIANT = "xiangqi"
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def to_iccs(uci):
    m = re.match(r"^([a-i])(\d+)([a-i])(\d+)$", uci)
    return f"{m[1]}{int(m[2]) - 1}{m[3]}{int(m[4]) - 1}"


def read_cchess(chunks):
    out = []
    with tempfile.TemporaryDirectory() as d:
        for i, chunk in enumerate(chunks):
            p = os.path.join(d, f"{i}.pgn")
            with open(p, "w", encoding="utf-8") as f:
                f.write(chunk + "\n")
            game = cchess.Game.read_from(p)
            lines = game.dump_iccs_moves()
            moves = [str(m) for m in lines[0]] if lines else []
            board = game.init_board.copy()
            for m in moves:
                board.move_iccs(m)
                board.next_turn()
            out.append({"moves": moves, "fen": board.to_fen()})
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        wxf_games = games_of(f.read())
    with open(sys.argv[2], encoding="utf-8") as f:
        iccs_games = games_of(f.read())
    if len(wxf_games) != len(iccs_games):
        raise SystemExit(f"{len(wxf_games)} WXF games, {len(iccs_games)} ICCS games")
    cc = read_cchess([chunk for _, _, chunk in iccs_games])
    tandem = 0
    out = []
    for gi, ((tags, tokens, _), cg) in enumerate(zip(wxf_games, cc)):
        if tags.get("Variant") != "xiangqi" or tags.get("Format") != "WXF":
            raise SystemExit(f"game {gi}: tags {tags}")
        start = tags.get("FEN", sf.start_fen(VARIANT))
        texts, result = [], None
        for tok in tokens:
            if tok in RESULTS:
                result = tok
                break
            if not re.match(r"^\d+\.(\.\.)?$", tok):
                texts.append(tok)
        moves = cg["moves"]
        if len(texts) != len(moves):
            raise SystemExit(f"game {gi}: {len(texts)} WXF tokens, cchess read {len(moves)} moves")
        fs_moves = [to_fs(m) for m in moves]
        names = sf.get_san_moves(VARIANT, start, fs_moves, False, sf.NOTATION_XIANGQI_WXF)
        board = board_of(start)
        plies = []
        for pi, (tok, iccs, name) in enumerate(zip(texts, moves, names)):
            want = tok.replace(".", "=")
            if want != name:
                if tandem_as_file(board, iccs, want) != name:
                    raise SystemExit(
                        f"game {gi} ply {pi + 1}: the record says {tok!r}, "
                        f"Fairy-Stockfish writes {name!r} for {iccs}"
                    )
                tandem += 1
            ply = {"text": tok, "wxf": name, "iccs": iccs}
            if gi % 20 == 0:
                before = sf.get_fen(VARIANT, start, fs_moves[:pi])
                ply["legal"] = sorted(to_iccs(u) for u in sf.legal_moves(VARIANT, before, []))
                ply["fen"] = sf.get_fen(VARIANT, before, [fs_moves[pi]])
            plies.append(ply)
            f, t = (ord(iccs[0]) - 97, int(iccs[1])), (ord(iccs[2]) - 97, int(iccs[3]))
            board[t] = board.pop(f)
        end = sf.get_fen(VARIANT, start, fs_moves)
        out.append(
            {
                "start": start,
                "result_tag": tags.get("Result"),
                "result": result,
                "plies": plies,
                "end": end,
                "moves_left": len(sf.legal_moves(VARIANT, end, [])),
                "in_check": sf.gives_check(VARIANT, end, []),
                "cchess": cg,
            }
        )
    json.dump({"games": out, "tandem_as_file": tandem}, sys.stdout)


if __name__ == "__main__":
    main()
