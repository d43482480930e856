"""What the xiangqi oracle scripts share: PGN split into games, the ICCS
and Fairy-Stockfish square names, and the WXF front/rear check. Plain
Python, no reader library: the scripts import it from beside them.
"""
import re


def games_of(text):
    """Splits a PGN file into (tags, tokens, chunk) per game."""
    games = []
    tags, moves, lines = {}, [], []
    for line in text.splitlines() + [""]:
        s = line.strip()
        m = re.match(r'^\[(\w+)\s+"(.*)"\]$', s)
        if m and moves:
            games.append((tags, moves, "\n".join(lines)))
            tags, moves, lines = {}, [], []
        lines.append(line)
        if m:
            tags[m.group(1)] = m.group(2)
        elif s:
            # Comments (`{[%clk 0:04:58]}`) are not moves; ours never span
            # lines.
            moves.extend(re.sub(r"\{[^}]*\}", " ", s).split())
    if moves:
        games.append((tags, moves, "\n".join(lines)))
    return games


def to_fs(iccs):
    """ICCS ranks 0-9; Fairy-Stockfish numbers xiangqi ranks 1-10."""
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def board_of(fen):
    """{(file 0-8, rank 0-9): FEN letter}."""
    board = {}
    for i, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                board[(f, 9 - i)] = c
                f += 1
    return board


def tandem_as_file(board, iccs, token):
    """When `token` names the piece that `iccs` moves as the front (`+`) or
    rear (`-`) one of exactly two of its kind on its file, the token with
    the file number written instead; else None."""
    if len(token) != 4 or not token[0].isalpha() or token[1] not in "+-":
        return None
    f, r = ord(iccs[0]) - ord("a"), int(iccs[1])
    piece = board.get((f, r))
    if piece is None:
        return None
    red = piece.isupper()
    same = sorted(rank for (ff, rank), c in board.items() if ff == f and c == piece)
    if len(same) != 2:
        return None
    front = max(same) if red else min(same)
    if (token[1] == "+") != (r == front):
        return None
    number = 9 - f if red else f + 1
    return token[0] + str(number) + token[2:]
