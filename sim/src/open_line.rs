//! A simulated draughts or xiangqi board on a pseudo-terminal: it plays
//! an [`OtherGameSession`] (the lines [`super::open`] simulates) to a host that
//! speaks the open protocol, as `boardcast run` does.
//!
//! It answers `?` with the session's `hello` and `board?` with the board as
//! it stands now (so the host's keepalives agree with the moves); the
//! host's first `board?` starts play, and each later line goes out after
//! its simulated gap, mapped to wall time by a [`Pace`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use boardcast_protocols::open::{Game, HostDecoder, HostLine, Line as OpenLine};
use boardcast_protocols::reading::{Content, Snapshot};
use bytes::BytesMut;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::open::{OtherGame, OtherGameSession};
use super::pty::{Line, Pace, PtyError, open_line, read_host, write_all};

/// What the board shows now, and its `hello`.
struct Board {
    hello: String,
    game: Game,
    now: Option<Snapshot>,
    /// Lines of the session written so far.
    written: usize,
}

impl Board {
    /// Follows one line the board sends.
    fn apply(&mut self, line: &str) {
        let decoder =
            boardcast_protocols::open::Decoder::with_game(self.game, self.game.default_geometry());
        match decoder.parse(line) {
            Ok(OpenLine::Board(s)) => self.now = Some(s),
            Ok(OpenLine::Up(sq)) => {
                if let Some(s) = &mut self.now {
                    s.set(sq, Content::Empty);
                }
            }
            Ok(OpenLine::Down { square, piece }) => {
                if let Some(s) = &mut self.now {
                    s.set(square, piece.map_or(Content::Occupied, Content::Piece));
                }
            }
            _ => {}
        }
    }

    /// The board as `session` opens it (its `hello`, the serial number
    /// made `name`, and the set-up board), with the number of those
    /// opening lines.
    fn opened(session: &OtherGameSession, name: &str, game: Game) -> (Board, usize) {
        // The session opens with its `hello` and the set-up board.
        let opening = session
            .lines
            .iter()
            .take_while(|(_, l)| l.starts_with("hello") || l.starts_with("board"))
            .count();
        let mut board = Board {
            hello: String::new(),
            game,
            now: None,
            written: opening,
        };
        for (_, line) in &session.lines[..opening] {
            if line.starts_with("hello") {
                // Its serial number is its name (two boards, two ids).
                board.hello = line
                    .split(' ')
                    .map(|w| {
                        if w.starts_with("id=") {
                            format!("id=sim-{name}")
                        } else {
                            w.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
            }
            board.apply(line);
        }
        (board, opening)
    }

    fn board_line(&self) -> Option<String> {
        let s = self.now.clone()?;
        Some(OpenLine::Board(s).encode(self.game))
    }
}

/// A simulated open-protocol board of draughts or xiangqi on a pty,
/// linked as `{folder}/{name}-1`.
pub struct OtherGameBoard {
    path: PathBuf,
    board: Arc<Mutex<Board>>,
    lines: usize,
    server: JoinHandle<()>,
    player: JoinHandle<()>,
    line: Arc<Line>,
}

impl std::fmt::Debug for OtherGameBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtherGameBoard")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn lock(board: &Mutex<Board>) -> std::sync::MutexGuard<'_, Board> {
    board.lock().unwrap_or_else(|e| e.into_inner())
}

/// Answers the host: `?` with the `hello`, `board?` with the board as it
/// stands (the first one starts play).
async fn serve(board: Arc<Mutex<Board>>, master: Arc<Line>, started: Arc<Notify>) {
    let mut decoder = HostDecoder::new();
    let mut buf = BytesMut::new();
    read_host(&master, |chunk| {
        buf.extend_from_slice(chunk);
        loop {
            let reply = match decoder.decode(&mut buf) {
                Ok(Some(HostLine::Hello)) => Some(lock(&board).hello.clone()),
                Ok(Some(HostLine::Board)) => {
                    started.notify_one();
                    lock(&board).board_line()
                }
                Err(_) => continue,
                Ok(None) => break,
            };
            if let Some(line) = reply {
                write_all(&master, format!("{line}\n").as_bytes());
            }
        }
    })
    .await;
}

/// Once started, writes the session's lines after its `opening` ones, each
/// after its simulated gap at `pace`.
async fn play(
    board: Arc<Mutex<Board>>,
    master: Arc<Line>,
    started: Arc<Notify>,
    session: OtherGameSession,
    opening: usize,
    pace: Pace,
) {
    started.notified().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut last = session.lines[..opening].last().map_or(0, |(t, _)| *t);
    for (t, line) in &session.lines[opening..] {
        let gap = pace.gap(t.saturating_sub(last));
        last = *t;
        tokio::time::sleep(Duration::from_secs_f64(gap / 1000.0)).await;
        let mut b = lock(&board);
        b.apply(line);
        b.written += 1;
        write_all(&master, format!("{line}\n").as_bytes());
    }
}

impl OtherGameBoard {
    /// Plugs in a board of `game` playing `session` at `pace`. Call inside
    /// a tokio runtime.
    pub fn start(
        folder: &Path,
        name: &str,
        game: OtherGame,
        session: OtherGameSession,
        pace: Pace,
    ) -> Result<OtherGameBoard, PtyError> {
        let path = folder.join(format!("{name}-1"));
        let master = open_line(&path)?;
        let line = master.clone();
        let wire = match game {
            OtherGame::Draughts => Game::Draughts,
            OtherGame::Xiangqi => Game::Xiangqi,
        };
        let (board, opening) = Board::opened(&session, name, wire);
        let board = Arc::new(Mutex::new(board));
        let started = Arc::new(Notify::new());
        let server = tokio::spawn(serve(board.clone(), master.clone(), started.clone()));
        let lines = session.lines.len();
        let player = tokio::spawn(play(board.clone(), master, started, session, opening, pace));
        Ok(OtherGameBoard {
            path,
            board,
            lines,
            server,
            player,
            line,
        })
    }

    /// The glob pattern that finds the board.
    pub fn pattern(&self) -> String {
        self.path
            .to_string_lossy()
            .trim_end_matches("-1")
            .to_string()
            + "-*"
    }

    /// Whether every line of the session has been written.
    pub fn done(&self) -> bool {
        lock(&self.board).written == self.lines
    }
}

impl Drop for OtherGameBoard {
    fn drop(&mut self) {
        self.server.abort();
        self.player.abort();
        self.line.close();
        let _ = std::fs::remove_file(&self.path);
    }
}
