"""Replays what public LiveChess 2 clients send, against boardcast's
imitation, and prints every frame received as one JSON line:
{"client", "step", "raw", "keys", "param_keys", "item_keys"} (key lists in
the order the server sent them). The Rust test (tests/livechess.rs) checks
them. Usage: livechess_clients.py MODE HOST PORT [SECONDS]

Modes (the request sequences are those of the named clients, rewritten
from their public descriptions, not copied):
  lichess   lichess's DGT page: eboards id 1, subscribe id 2 / feed 1,
            call/setup id 3 with the start FEN; then follows the feed until
            two moves came one frame each and a piece was seen in the air
            (or SECONDS pass)
  chesscom  chess.com's page: same ids, Origin https://www.chess.com, no
            setup; follows the feed for SECONDS
  dgtangel  DgtAngel: eboards with param null, the next frame must be the
            reply; subscribe with call id 999, the next frame must be the ack
  extras    sources, flip, livechess-go's mistaken flip, an unknown call,
            bad JSON, an unknown serial, unsubscribe, then silence
  rest      the REST routes (raw key order)
  library   the PyPI `livechess` package's LiveChessLocal, unchanged
"""

import json
import sys
import time
import urllib.request

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def shape(x):
    """Keys in the order sent, and JSON types: objects become lists of
    [key, shape] pairs, arrays {"list": [shapes]}, scalars their type."""
    if isinstance(x, dict):
        return [[k, shape(v)] for k, v in x.items()]
    if isinstance(x, list):
        return {"list": [shape(v) for v in x]}
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    if isinstance(x, float):
        return "float"
    return "str"


def emit(client, step, raw):
    d = json.loads(raw)
    out = {"client": client, "step": step, "raw": raw, "shape": shape(d),
           "keys": list(d) if isinstance(d, dict) else None}
    p = d.get("param") if isinstance(d, dict) else d
    if isinstance(p, dict):
        out["param_keys"] = list(p)
    items = p if isinstance(p, list) else (d if isinstance(d, list) else None)
    if items is not None:
        out["item_keys"] = [list(x) if isinstance(x, dict) else None for x in items]
    print(json.dumps(out), flush=True)
    return d


def connect(host, port, origin=None):
    import websocket

    ws = websocket.WebSocket()
    headers = {"Origin": origin} if origin else None
    ws.connect(f"ws://{host}:{port}/api/v1.0", header=[f"Origin: {origin}"] if origin else None)
    ws.settimeout(10)
    return ws


def recv(ws, client, step):
    return emit(client, step, ws.recv())


def first_active(boards):
    for b in boards:
        if b["state"] == "ACTIVE":
            return b
    return boards[0]


def follow(ws, client, seconds, stop=None):
    deadline = time.time() + seconds
    ws.settimeout(0.5)
    while time.time() < deadline:
        try:
            raw = ws.recv()
        except Exception:
            continue
        d = emit(client, "feed", raw)
        if stop and stop(d):
            return


def lichess(host, port, seconds):
    ws = connect(host, port, "https://lichess.org")
    ws.send('{"id":1,"call":"eboards"}')
    boards = recv(ws, "lichess", "eboards")["param"]
    serial = first_active(boards)["serialnr"]
    sub = {"id": 2, "call": "subscribe", "param": {"feed": "eboardevent", "id": 1, "param": {"serialnr": serial}}}
    ws.send(json.dumps(sub))
    recv(ws, "lichess", "ack")
    recv(ws, "lichess", "first")
    setup = {"id": 3, "call": "call", "param": {"id": 1, "method": "setup", "param": {"fen": START}}}
    ws.send(json.dumps(setup))
    # A move on the board may send a feed frame before the setup's reply.
    skip_feeds(ws, "lichess", "setup")
    # Follow the game until two moves have come one by one, each frame's
    # SAN list the previous one plus a move.
    # Also until a piece in the air has been seen (a board frame with one
    # piece fewer between two with as many), which the test checks.
    seen = {"last": None, "grown": 0, "counts": []}

    def in_the_air():
        c = seen["counts"]
        return any(c[i + 1] + 1 == c[i] and c[i + 2] == c[i] for i in range(len(c) - 2))

    def grown(d):
        if d.get("response") != "feed":
            return False
        board = d["param"].get("board")
        if isinstance(board, str):
            seen["counts"].append(sum(ch.isalpha() for ch in board))
        if "san" not in d["param"]:
            return False
        san = d["param"]["san"]
        last = seen["last"]
        if last is not None and len(san) == len(last) + 1 and san[: len(last)] == last:
            seen["grown"] += 1
        seen["last"] = san
        return seen["grown"] >= 2 and in_the_air()

    follow(ws, "lichess", seconds, grown)
    ws.close()


def chesscom(host, port, seconds):
    ws = connect(host, port, "https://www.chess.com")
    ws.send('{"id":1,"call":"eboards"}')
    boards = recv(ws, "chesscom", "eboards")["param"]
    sub = {"id": 2, "call": "subscribe", "param": {"feed": "eboardevent", "id": 1, "param": {"serialnr": boards[0]["serialnr"]}}}
    ws.send(json.dumps(sub))
    recv(ws, "chesscom", "ack")
    recv(ws, "chesscom", "first")
    follow(ws, "chesscom", seconds)
    ws.close()


def dgtangel(host, port, seconds):
    ws = connect(host, port)
    ws.send('{"call":"eboards","id":1,"param":null}')
    boards = recv(ws, "dgtangel", "eboards")["param"]
    b = first_active(boards)
    ws.send(json.dumps({"call": "subscribe", "id": 999, "param": {"feed": "eboardevent", "id": 1, "param": {"serialnr": b["serialnr"]}}}))
    recv(ws, "dgtangel", "ack")
    follow(ws, "dgtangel", seconds)
    ws.close()


def extras(host, port, seconds):
    ws = connect(host, port)
    ws.send('{"id":1,"call":"sources","param":null}')
    boards = None
    recv(ws, "extras", "sources")
    ws.send('{"id":2,"call":"eboards","param":null}')
    boards = recv(ws, "extras", "eboards")["param"]
    serial = boards[-1]["serialnr"]
    ws.send(json.dumps({"id": 3, "call": "subscribe", "param": {"feed": "eboardevent", "id": 7, "param": {"serialnr": serial}}}))
    recv(ws, "extras", "ack")
    recv(ws, "extras", "first")
    ws.send('{"id":4,"call":"call","param":{"id":7,"method":"flip","param":{"flip":true}}}')
    # The ack, then the flipped frame (frames for board moves may come
    # in between: read until the flipped one).
    skip_feeds(ws, "extras", "flip")
    follow(ws, "extras", 5, lambda d: d.get("response") == "feed" and d["param"].get("flipped") is True)
    ws.send('{"id":5,"call":"call","param":{"id":7,"method":"setup","param":{"flip":false}}}')
    skip_feeds(ws, "extras", "setup-flip")
    ws.send('{"id":6,"call":"frobnicate","param":null}')
    skip_feeds(ws, "extras", "unknown")
    ws.send('{"id":7,"call":"eboards"')
    skip_feeds(ws, "extras", "badjson")
    ws.send('{"id":8,"call":"subscribe","param":{"feed":"eboardevent","id":9,"param":{"serialnr":"nope"}}}')
    skip_feeds(ws, "extras", "noboard")
    ws.send('{"id":9,"call":"unsubscribe","param":{"id":7}}')
    skip_feeds(ws, "extras", "unsubscribe")
    follow(ws, "extras", seconds)
    ws.close()


def skip_feeds(ws, client, step):
    """The next frame that is not a feed frame (feeds may be in flight)."""
    while True:
        d = json.loads(raw := ws.recv())
        if d.get("response") != "feed":
            return emit(client, step, raw)
        emit(client, "feed", raw)


def rest(host, port, seconds):
    base = f"http://{host}:{port}/api/v1.0"
    for step, path in [("eboards", "/eboards"), ("tournaments", "/tournaments")]:
        with urllib.request.urlopen(base + path) as r:
            emit("rest", step, r.read().decode())
    t = json.loads(urllib.request.urlopen(base + "/tournaments").read())[0]
    emit("rest", "tournament", urllib.request.urlopen(f"{base}/tournament/{t['uuid']}").read().decode())
    r = json.loads(urllib.request.urlopen(f"{base}/round/{t['uuid']}/0").read())
    emit("rest", "round", json.dumps(r))
    emit("rest", "game", urllib.request.urlopen(f"{base}/game/{r['pairings'][0]['uuid']}").read().decode())
    try:
        urllib.request.urlopen(f"{base}/game/00000000-0000-4000-8000-000000000000")
        emit("rest", "missing", json.dumps({"status": 200}))
    except urllib.error.HTTPError as e:
        emit("rest", "missing", json.dumps({"status": e.code}))


def library(host, port, seconds):
    import chess.pgn
    import io
    from livechess.local import LiveChessLocal

    lc = LiveChessLocal(host, int(port))
    boards = lc.eboards()
    emit("library", "eboards", json.dumps([{"serialnr": b.serialnr, "state": b.state, "board": b.board} for b in boards]))
    (summary,) = lc.tournaments()
    t = lc.tournament(summary.uuid)
    rounds = list(lc.rounds(t.uuid, range(t.rounds)))
    games = []
    for rnd in rounds:
        for p in rnd.pairings:
            g = lc.game(p.uuid)
            # The moves replay as a game in python-chess.
            sans = [m.split(" ")[0] for m in g.moves]
            game = chess.pgn.read_game(io.StringIO(" ".join(sans)))
            played = len(list(game.mainline_moves())) if game else 0
            games.append({"nr": p.nr, "white": p.white.name, "black": p.black.name, "live": p.live,
                          "moves": g.moves, "played": played, "eboard": t.eboards[p.nr - 1]})
    events = [e.type.value for e in lc.events(t.uuid)]
    emit("library", "summary", json.dumps({"rounds": t.rounds, "eboards": t.eboards, "games": games, "events": events}))


if __name__ == "__main__":
    mode, host, port = sys.argv[1], sys.argv[2], sys.argv[3]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 5.0
    globals()[mode](host, port, seconds)
