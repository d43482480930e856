#!/usr/bin/env python3
"""An independent encoder of e-board byte streams.

Turns the games of a PGN file (read with python-chess) into boardcast
captures (`# boardcast capture v1 protocol=<name> ...`, then
`<t_ms> <dir> <hex bytes>` lines) of each board family, written straight
from the public protocol notes, not from boardcast's code:

* dgt: DGT e-board serial protocol (dgtbrd.h): host commands 0x40, 0x45,
  0x42, 0x44; board dump 0x86 (64 piece codes, field 0 = a8), field
  updates 0x8e (field, piece code).
* dgt-bus: DGT bus mode as LiveChess polls it: 4-byte requests
  `<cmd> <addr hi7> <addr lo7> <sum & 0x7f>`, replies
  `<id> <len hi7> <len lo7> <addr hi7> <addr lo7> <data> <sum & 0x7f>`:
  ping 0x87, whole board 0x83, changes 0x85 as EEPROM records
  (`0x40 | piece code`, field); a second board on the same line.
* millennium: ChessLink status reports `s` + 64 square characters + two
  hex digits of XOR; with and without the odd-parity bit in bit 7; the
  documented order (a8 first) or its rotation (h1 first); `v`, `x`, `l`
  replies between them; upper or lower case hex.
* certabo: `:` + 320 decimal numbers (a 5-byte RFID card id per square,
  a8 first) + CR LF; calibration from the start position with a spare
  queen of each colour on d3 and d6; noisy partial ids on empty squares;
  a frame every half second and on every change.
* open: the open board protocol (`hello`, `board`, `up`, `down`), with
  piece identity or occupancy only (`pieces=no`), with or without `hello`,
  LF or CR LF.

Handling is plain but real: a piece is lifted, then set down (on boards
that identify pieces, now and then the arrival is reported before the
departure, as one scan of a DGT board can see it); a capture lifts the
victim first or the capturer first (on boards that identify pieces,
sometimes the capturer is set straight onto the victim); castling
moves the king first; en passant removes the pawn after the capture; a
promotion sets down the new piece.

Usage: encode.py PGN OUT_DIR [--limit N] [--seed S] [--families a,b]
Writes OUT_DIR/<family>-<n>.capture and OUT_DIR/manifest.json (a list of
{"capture", "family", "sans"}: the moves python-chess read from the PGN).
"""

import argparse
import json
import os
import random
import sys

import chess
import chess.pgn

# DGT piece codes (dgtbrd.h): white P R N B K Q = 1..6, black = 7..12.
DGT_CODE = {
    (chess.PAWN, chess.WHITE): 0x01,
    (chess.ROOK, chess.WHITE): 0x02,
    (chess.KNIGHT, chess.WHITE): 0x03,
    (chess.BISHOP, chess.WHITE): 0x04,
    (chess.KING, chess.WHITE): 0x05,
    (chess.QUEEN, chess.WHITE): 0x06,
    (chess.PAWN, chess.BLACK): 0x07,
    (chess.ROOK, chess.BLACK): 0x08,
    (chess.KNIGHT, chess.BLACK): 0x09,
    (chess.BISHOP, chess.BLACK): 0x0A,
    (chess.KING, chess.BLACK): 0x0B,
    (chess.QUEEN, chess.BLACK): 0x0C,
}

FAMILIES = ["dgt", "dgt-bus", "millennium", "certabo", "open", "open-occupancy"]


def hexline(t, direction, data):
    return "%d %s %s" % (t, direction, " ".join("%02x" % b for b in data))


def field_of(square, rotated=False):
    """DGT field number: 0 = a8 ... 63 = h1; 63 - n on a turned board."""
    n = (7 - chess.square_rank(square)) * 8 + chess.square_file(square)
    return 63 - n if rotated else n


# ---------------------------------------------------------------------------
# Physical handling: a game as a list of (t_ms, square, piece or None).


def handling(game, rng, identity):
    """The sensor changes of a game played by hand, with times.

    `identity`: the board names pieces (a capturer may be set straight onto
    its victim). Returns the start board and [(t, square, piece|None)].
    """
    board = game.board()
    events = []
    t = 3000
    for move in game.mainline_moves():
        t += rng.randint(1500, 4000)
        mover = board.piece_at(move.from_square)
        def lift(sq):
            nonlocal t
            events.append((t, sq, None))
            t += rng.randint(150, 600)

        def put(sq, piece):
            nonlocal t
            events.append((t, sq, piece))
            t += rng.randint(150, 600)

        landed = chess.Piece(move.promotion, mover.color) if move.promotion else mover
        if board.is_castling(move):
            rook_from, rook_to = castling_rook(board, move)
            king_to = chess.square(6 if chess.square_file(rook_from) == 7 else 2,
                                   chess.square_rank(move.from_square))
            lift(move.from_square)
            put(king_to, mover)
            lift(rook_from)
            put(rook_to, board.piece_at(rook_from))
        elif board.is_en_passant(move):
            victim = chess.square(chess.square_file(move.to_square),
                                  chess.square_rank(move.from_square))
            lift(move.from_square)
            put(move.to_square, mover)
            lift(victim)
        elif board.is_capture(move):
            way = rng.random()
            if identity and way < 0.25:
                # The capturer set straight onto its victim.
                lift(move.from_square)
                put(move.to_square, landed)
            elif way < 0.6:
                lift(move.to_square)
                lift(move.from_square)
                put(move.to_square, landed)
            else:
                lift(move.from_square)
                lift(move.to_square)
                put(move.to_square, landed)
        elif identity and rng.random() < 0.2:
            # One scan saw the piece on both squares: the arrival is
            # reported before the departure (dgtbrd.h, "dynamics").
            put(move.to_square, landed)
            lift(move.from_square)
        else:
            lift(move.from_square)
            put(move.to_square, landed)
        board.push(move)
    return game.board(), events


def castling_rook(board, move):
    king_file = chess.square_file(move.from_square)
    rank = chess.square_rank(move.from_square)
    if chess.square_file(move.to_square) > king_file:
        return chess.square(7, rank), chess.square(5, rank)
    return chess.square(0, rank), chess.square(3, rank)


def placement(board):
    """{square: piece} of a python-chess board."""
    return {sq: board.piece_at(sq) for sq in chess.SQUARES if board.piece_at(sq)}


# ---------------------------------------------------------------------------
# Families


def encode_dgt(start, events, rng, board_id):
    rotated = rng.random() < 0.3
    lines = ["# boardcast capture v1 protocol=dgt board=%s" % board_id]
    lines.append(hexline(0, ">", [0x40]))
    lines.append(hexline(5, ">", [0x45]))
    lines.append(hexline(30, "<", [0x91, 0x00, 0x08] + list(b"01025")))
    lines.append(hexline(40, ">", [0x42]))
    cells = [0] * 64
    for sq, piece in placement(start).items():
        cells[field_of(sq, rotated)] = DGT_CODE[(piece.piece_type, piece.color)]
    lines.append(hexline(100, "<", [0x86, 0x00, 0x43] + cells))
    lines.append(hexline(120, ">", [0x44]))
    for t, sq, piece in events:
        code = DGT_CODE[(piece.piece_type, piece.color)] if piece else 0
        lines.append(hexline(t, "<", [0x8E, 0x00, 0x05, field_of(sq, rotated), code]))
    return lines


def bus_request(cmd, addr):
    head = [cmd, (addr >> 7) & 0x7F, addr & 0x7F]
    return head + [sum(head) & 0x7F]


def bus_reply(msg_id, addr, data):
    length = 5 + len(data) + 1
    frame = [msg_id, (length >> 7) & 0x7F, length & 0x7F, (addr >> 7) & 0x7F, addr & 0x7F] + data
    return frame + [sum(frame) & 0x7F]


def encode_dgt_bus(start, events, rng, board_id):
    unit = rng.choice([1025, 300, 4711])
    other = 77  # another board on the line, its game not started
    lines = ["# boardcast capture v1 protocol=dgt-bus board=%s unit=%d" % (board_id, unit)]
    # Discovery as LiveChess does it: reset, trademark, to bus mode, ping.
    lines.append(hexline(0, ">", [0x40, 0x40, 0x40]))
    lines.append(hexline(10, ">", [0x4A]))
    lines.append(hexline(20, ">", bus_request(0x87, 0)))
    lines.append(hexline(300, "<", bus_reply(0x87, other, [])))
    lines.append(hexline(700, "<", bus_reply(0x87, unit, [])))
    t = 1500
    cells = [0] * 64
    for sq, piece in placement(start).items():
        cells[field_of(sq)] = DGT_CODE[(piece.piece_type, piece.color)]
    for addr, dump in ((unit, cells), (other, [0] * 64)):
        lines.append(hexline(t, ">", bus_request(0x82, addr)))
        lines.append(hexline(t + 15, "<", bus_reply(0x83, addr, dump)))
        t += 100
    # Poll every 250 ms: each board in turn, changes since the last poll.
    pending = list(events)
    turn = 0
    end = (events[-1][0] if events else t) + 3000
    while t < end:
        addr = unit if turn % 2 == 0 else other
        turn += 1
        lines.append(hexline(t, ">", bus_request(0x83, addr)))
        data = []
        if addr == unit:
            while pending and pending[0][0] <= t:
                _, sq, piece = pending.pop(0)
                code = DGT_CODE[(piece.piece_type, piece.color)] if piece else 0
                data += [0x40 | code, field_of(sq)]
        lines.append(hexline(t + 12, "<", bus_reply(0x85, addr, data)))
        t += 125
    return lines


MILL_LETTER = {
    chess.PAWN: "p", chess.KNIGHT: "n", chess.BISHOP: "b",
    chess.ROOK: "r", chess.QUEEN: "q", chess.KING: "k",
}


def odd_parity(c):
    return c | 0x80 if bin(c).count("1") % 2 == 0 else c


def mill_frame(text, parity, lower):
    x = 0
    for c in text.encode():
        x ^= c
    digits = ("%02x" if lower else "%02X") % x
    data = list((text + digits).encode())
    return [odd_parity(c) for c in data] if parity else data


def encode_millennium(start, events, rng, board_id):
    parity = rng.random() < 0.5
    rotated = rng.random() < 0.5
    lower = rng.random() < 0.3
    lines = ["# boardcast capture v1 protocol=millennium board=%s" % board_id]
    cells = placement(start)

    def report():
        chars = []
        for rank in range(7, -1, -1):
            for file in range(8):
                p = cells.get(chess.square(file, rank))
                c = "."
                if p:
                    c = MILL_LETTER[p.piece_type]
                    c = c.upper() if p.color == chess.WHITE else c
                chars.append(c)
        if rotated:
            chars.reverse()
        return mill_frame("s" + "".join(chars), parity, lower)

    lines.append(hexline(0, ">", mill_frame("V", True, False)))
    lines.append(hexline(20, "<", mill_frame("v0103", parity, lower)))
    lines.append(hexline(30, ">", mill_frame("S", True, False)))
    lines.append(hexline(60, "<", report()))
    for i, (t, sq, piece) in enumerate(events):
        if piece:
            cells[sq] = piece
        else:
            cells.pop(sq, None)
        lines.append(hexline(t, "<", report()))
        if i % 7 == 3:
            # An LED command and its answer between the reports.
            lines.append(hexline(t + 5, ">", mill_frame("X", True, False)))
            lines.append(hexline(t + 9, "<", mill_frame("x", parity, lower)))
    return lines


def encode_certabo(start, events, rng, board_id):
    lines = ["# boardcast capture v1 protocol=certabo board=%s" % board_id]
    cards = {}  # square -> (card id, piece)
    next_card = [1]

    def new_card():
        n = next_card[0]
        next_card[0] += 1
        return (n & 0xFF, (n >> 8) + 17, 0x5A, rng.randint(1, 255), 0x3C)

    for sq, piece in placement(start).items():
        cards[sq] = (new_card(), piece)
    spare = {chess.WHITE: new_card(), chess.BLACK: new_card()}
    d3, d6 = chess.parse_square("d3"), chess.parse_square("d6")
    off_board = []  # (card, piece) taken off, for promotions
    in_hand = []

    def frame(extra=None):
        numbers = []
        for rank in range(7, -1, -1):
            for file in range(8):
                sq = chess.square(file, rank)
                if extra and sq in extra:
                    numbers += list(extra[sq])
                elif sq in cards:
                    numbers += list(cards[sq][0])
                elif rng.random() < 0.05:
                    numbers += rng.choice([[0, 0, 56, 0, 0], [201, 0, 0, 0, 0]])
                else:
                    numbers += [0, 0, 0, 0, 0]
        return list((":" + " ".join(str(n) for n in numbers) + " \r\n").encode())

    # Calibration: the start position with the spare queens on d3 and d6.
    lines.append(hexline(0, "<", frame({d3: spare[chess.WHITE], d6: spare[chess.BLACK]})))
    lines.append(hexline(500, "<", frame({d3: spare[chess.WHITE], d6: spare[chess.BLACK]})))
    t = 1000
    for when, sq, piece in events:
        while t + 500 < when:
            t += 500
            lines.append(hexline(t, "<", frame()))
        t = when
        if piece is None:
            if sq in cards:
                in_hand.append(cards.pop(sq))
        else:
            # The card set down: the piece in hand of that kind, else one
            # taken off earlier (a promotion), else the spare queen.
            pick = next((c for c in reversed(in_hand) if c[1] == piece), None)
            if pick:
                in_hand.remove(pick)
            else:
                pick = next((c for c in off_board if c[1] == piece), None)
                if pick:
                    off_board.remove(pick)
                elif piece.piece_type == chess.QUEEN:
                    pick = (spare[piece.color], piece)
                else:
                    pick = (new_card(), piece)
                # The pawn that promoted leaves the hand.
                pawn = next((c for c in in_hand if c[1].piece_type == chess.PAWN
                             and c[1].color == piece.color), None)
                if pawn:
                    in_hand.remove(pawn)
                    off_board.append(pawn)
            if sq in cards:
                off_board.append(cards.pop(sq))  # set straight onto its victim
            cards[sq] = pick
            # A capture: the victim in hand goes off the board.
            for c in list(in_hand):
                if c[1].color != piece.color:
                    in_hand.remove(c)
                    off_board.append(c)
        lines.append(hexline(t, "<", frame()))
    for _ in range(4):
        t += 500
        lines.append(hexline(t, "<", frame()))
    return lines


def square_name(sq):
    return chess.square_name(sq)


def encode_open(start, events, rng, board_id, identity=True):
    crlf = rng.random() < 0.5
    hello = identity and rng.random() < 0.7 or not identity
    end = "\r\n" if crlf else "\n"
    lines = ["# boardcast capture v1 protocol=open board=%s" % board_id]

    def text(t, s):
        lines.append(hexline(t, "<", list((s + end).encode())))

    lines.append(hexline(0, ">", list(b"?\n")))
    if hello:
        text(10, "hello chess 8x8 id=enc-%s pieces=%s name=encoder extra=1"
             % (board_id, "yes" if identity else "no"))
    lines.append(hexline(20, ">", list(b"board?\n")))
    cells = []
    for rank in range(7, -1, -1):
        for file in range(8):
            p = start.piece_at(chess.square(file, rank))
            cells.append((p.symbol() if identity else "o") if p else ".")
    text(40, "# set up")
    text(50, "board " + "".join(cells))
    for t, sq, piece in events:
        if piece is None:
            text(t, "up " + square_name(sq))
        elif identity:
            text(t, "down %s %s" % (square_name(sq), piece.symbol()))
        else:
            text(t, "down " + square_name(sq))
    return lines


# ---------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pgn")
    ap.add_argument("out")
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--families", default=",".join(FAMILIES))
    args = ap.parse_args()
    families = args.families.split(",")
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    rng = random.Random(args.seed)
    n = 0
    with open(args.pgn, encoding="utf-8") as f:
        index = 0
        while n < args.limit:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            index += 1
            if index <= args.skip:
                continue
            standard = game.board().fen() == chess.STARTING_FEN
            if not standard:
                continue
            moves = list(game.mainline_moves())
            if not moves:
                continue
            underpromotes = any(m.promotion not in (None, chess.QUEEN) for m in moves)
            board = game.board()
            sans = []
            for m in moves:
                sans.append(board.san(m))
                board.push(m)
            n += 1
            for family in families:
                if family == "open-occupancy" and underpromotes:
                    continue  # an occupancy board reads every promotion as a queen
                identity = family != "open-occupancy"
                start, events = handling(game, rng, identity and family != "certabo")
                board_id = "g%d" % index
                if family == "dgt":
                    lines = encode_dgt(start, events, rng, board_id)
                elif family == "dgt-bus":
                    lines = encode_dgt_bus(start, events, rng, board_id)
                elif family == "millennium":
                    lines = encode_millennium(start, events, rng, board_id)
                elif family == "certabo":
                    lines = encode_certabo(start, events, rng, board_id)
                elif family == "open":
                    lines = encode_open(start, events, rng, board_id)
                elif family == "open-occupancy":
                    lines = encode_open(start, events, rng, board_id, identity=False)
                else:
                    sys.exit("unknown family " + family)
                path = os.path.join(args.out, "%s-%04d.capture" % (family, index))
                with open(path, "w", encoding="ascii", newline="\n") as out:
                    out.write("\n".join(lines) + "\n")
                manifest.append({"capture": path, "family": family, "sans": sans})
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as out:
        json.dump(manifest, out, indent=1)


if __name__ == "__main__":
    main()
