"""A stand-in for lichess's broadcast push endpoint, for the lichess test
(cli/tests/lichess.rs).

POST /api/broadcast/round/{ID}/push with `Authorization: Bearer TOKEN` and
the round's PGN: every push is read with python-chess and logged (one JSON
line per request: its time, the status answered, the games read), and
answered as lichess documents it (lichess-org/api,
doc/specs/tags/broadcasts/broadcast-round-broadcastRoundId-push.yaml):
`{"games": [{"tags": {...}, "moves": N} | {"tags": {...}, "error": "..."}]}`.

- A wrong round is 404, a missing or wrong token 401 (`{"error": ...}`).
- The first push carrying at least RATE_LIMIT_AT half-moves in all is
  answered 429 once, with `Retry-After: RETRY_AFTER`.
- A game whose White is REFUSED_WHITE is refused (its entry carries an
  `error`) until it has REFUSED_UNTIL half-moves: the daemon must log it
  and show it on the desk, then clear it.

With CERT and KEY, the server speaks HTTPS with that certificate.

Usage: lichess_server.py PORT ROUND TOKEN LOG [CERT KEY]
"""

import io
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import chess.pgn

PORT, ROUND, TOKEN, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
RATE_LIMIT_AT = 10
RETRY_AFTER = 3
REFUSED_WHITE = "Refused, Test"
REFUSED_UNTIL = 4

lock = threading.Lock()
state = {"rate_limited": False}


def read_games(text):
    """Every game of the PGN text: its tags, SAN moves and parse errors."""
    games = []
    stream = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        board = game.board()
        sans = []
        for move in game.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        games.append(
            {
                "tags": dict(game.headers),
                "sans": sans,
                "errors": [str(e) for e in game.errors],
            }
        )
    return games


def log(entry):
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def do_POST(self):
        t = time.time()
        length = int(self.headers.get("Content-Length", "0"))
        text = self.rfile.read(length).decode("utf-8")
        entry = {
            "t": t,
            "path": self.path,
            "auth_ok": self.headers.get("Authorization") == "Bearer " + TOKEN,
            "content_type": self.headers.get("Content-Type", ""),
            "user_agent": self.headers.get("User-Agent", ""),
        }
        if self.path != "/api/broadcast/round/%s/push" % ROUND:
            entry["status"] = 404
            log(entry)
            return self.answer(404, {"error": "Not found"})
        if not entry["auth_ok"]:
            entry["status"] = 401
            log(entry)
            return self.answer(401, {"error": "No such token"})
        games = read_games(text)
        entry["games"] = games
        plies = sum(len(g["sans"]) for g in games)
        with lock:
            limit = plies >= RATE_LIMIT_AT and not state["rate_limited"]
            if limit:
                state["rate_limited"] = True
        if limit:
            entry["status"] = 429
            log(entry)
            return self.answer(
                429,
                {"error": "Too many requests. Try again later."},
                [("Retry-After", str(RETRY_AFTER))],
            )
        answers = []
        for g in games:
            tags = {k: g["tags"][k] for k in ("Event", "Round", "White", "Black", "Result") if k in g["tags"]}
            if g["errors"]:
                answers.append({"tags": tags, "error": g["errors"][0]})
            elif g["tags"].get("White") == REFUSED_WHITE and len(g["sans"]) < REFUSED_UNTIL:
                answers.append({"tags": tags, "error": "Test refusal: too few moves"})
            else:
                answers.append({"tags": tags, "moves": len(g["sans"])})
        entry["status"] = 200
        log(entry)
        self.answer(200, {"games": answers})

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", PORT), Handler)
if len(sys.argv) > 6:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[5], sys.argv[6])
    server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
