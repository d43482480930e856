//! The players' hands at a simulated draughts or xiangqi board: what
//! stands where, the time, and the lines the board sends.

use boardcast_protocols::reading::Square;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use boardcast::event::Millis;

use super::{Habits, OtherGame, OtherGameProfile, OtherGameSession};

/// The players' hands at a simulated board: what stands where, the time,
/// and the lines the board has sent.
pub(crate) struct Hands {
    game: OtherGame,
    pub(crate) profile: OtherGameProfile,
    pub(crate) rng: SmallRng,
    t: Millis,
    lines: Vec<(Millis, String)>,
    /// When each ply was completed.
    plies: Vec<Millis>,
    /// What stands on each square (game coordinates, snapshot order).
    pub(super) cells: Vec<Option<char>>,
    /// No knocks (while a fault is being staged).
    pub(crate) quiet: bool,
    /// Habits beyond the profile's.
    pub(super) habits: Habits,
    /// What the mover left for the opponent, done at the opponent's turn.
    pub(super) deferred: Vec<Deferred>,
    /// The next move comes at once (the first mover, waiting for a pushed
    /// piece to be set back, moves as soon as it is).
    hurry: bool,
}

/// Habits a profile does not draw (so that sessions simulated without them
/// stay as they were), each the profile of one habit the real games showed
/// Something left for the opponent to do.
#[derive(Clone, Copy, Debug)]
pub(super) enum Deferred {
    /// Lift a captured man.
    Clear(Square),
    /// Crown the man standing here with this letter.
    Crown(Square, char),
}

impl Hands {
    pub(crate) fn new(
        game: OtherGame,
        profile: OtherGameProfile,
        seed: u64,
        cells: Vec<Option<char>>,
    ) -> Hands {
        Hands {
            game,
            profile,
            rng: SmallRng::seed_from_u64(seed),
            t: 0,
            lines: Vec::new(),
            plies: Vec::new(),
            cells,
            quiet: false,
            habits: Habits::default(),
            deferred: Vec::new(),
            hurry: false,
        }
    }

    /// What stands on each square (game coordinates, snapshot order).
    pub(crate) fn cells_snapshot(&self) -> Vec<Option<char>> {
        self.cells.clone()
    }

    pub(crate) fn wait(&mut self, lo: Millis, hi: Millis) {
        self.t += self.rng.gen_range(lo..=hi);
    }

    /// Whether a real habit of probability `p` happens now.
    pub(super) fn real_habit(&mut self, p: f64) -> bool {
        self.profile.human && self.profile.real && !self.quiet && self.rng.gen_bool(p)
    }

    /// A stop on the way, as the real recordings time it: about a third of
    /// a second, one in ten up to two seconds.
    pub(super) fn stop_on_the_way(&mut self) {
        if self.rng.gen_bool(0.1) {
            self.wait(600, 2_000);
        } else {
            self.wait(150, 600);
        }
    }

    /// Whether `sq` is on the board and empty.
    pub(super) fn empty(&self, file: i16, rank: i16) -> Option<Square> {
        let g = self.game.geometry();
        if file < 0 || rank < 0 || file >= i16::from(g.files()) || rank >= i16::from(g.ranks()) {
            return None;
        }
        let sq = Square::new(file as u8, rank as u8);
        self.cells[self.index(sq)].is_none().then_some(sq)
    }

    /// Lifts the captured piece on `sq` off the board; with the real
    /// habit, set down for a moment on an empty square beside it first
    /// (`diagonal`: only diagonal neighbours, the dark squares of a
    /// draughts board).
    pub(super) fn take_off(&mut self, sq: Square, diagonal: bool) {
        let piece = self.cells[self.index(sq)];
        if let Some(piece) = piece
            && self.real_habit(5.0 / 36.0)
        {
            let (f, r) = (i16::from(sq.file), i16::from(sq.rank));
            let steps: &[(i16, i16)] = if diagonal {
                &[(1, 1), (1, -1), (-1, 1), (-1, -1)]
            } else {
                &[(1, 0), (-1, 0), (0, 1), (0, -1)]
            };
            let beside: Vec<Square> = steps
                .iter()
                .filter_map(|(df, dr)| self.empty(f + df, r + dr))
                .collect();
            if !beside.is_empty() {
                let to = beside[self.rng.gen_range(0..beside.len())];
                self.up(sq);
                self.wait(100, 300);
                self.down(to, piece);
                self.wait(300, 1_500);
                self.up(to);
                return;
            }
        }
        self.up(sq);
    }

    fn phys(&self, sq: Square) -> Square {
        if self.profile.rotated {
            self.game.geometry().rotated(sq)
        } else {
            sq
        }
    }

    pub(super) fn index(&self, sq: Square) -> usize {
        self.game.geometry().index(sq).expect("on the board")
    }

    fn say(&mut self, line: String) {
        self.lines.push((self.t, line));
    }

    pub(crate) fn up(&mut self, sq: Square) {
        let i = self.index(sq);
        self.cells[i] = None;
        let name = self.phys(sq).name(self.game.first_rank());
        self.say(format!("up {name}"));
    }

    pub(crate) fn down(&mut self, sq: Square, piece: char) {
        let i = self.index(sq);
        self.cells[i] = Some(piece);
        let name = self.phys(sq).name(self.game.first_rank());
        if self.profile.pieces {
            self.say(format!("down {name} {piece}"));
        } else {
            self.say(format!("down {name}"));
        }
    }

    pub(crate) fn hello(&mut self) {
        let g = self.game.geometry();
        let pieces = if self.profile.pieces { "yes" } else { "no" };
        self.say(format!(
            "hello {} {}x{} id=SIM-1 pieces={pieces} name=boardcast-sim",
            self.game.name(),
            g.files(),
            g.ranks()
        ));
        let mut cells = String::new();
        for i in 0..g.len() {
            let game_sq = if self.profile.rotated {
                g.rotated(g.square(i).expect("in range"))
            } else {
                g.square(i).expect("in range")
            };
            cells.push(match self.cells[self.index(game_sq)] {
                None => '.',
                Some(_) if !self.profile.pieces => 'o',
                Some(c) => c,
            });
        }
        self.wait(5, 30);
        self.say(format!("board {cells}"));
    }

    /// A piece other than those of the move knocked and set back.
    pub(crate) fn maybe_knock(&mut self, avoid: &[Square]) {
        if !self.profile.human || self.quiet || !self.rng.gen_bool(0.08) {
            return;
        }
        let g = self.game.geometry();
        let occupied: Vec<Square> = (0..g.len())
            .filter(|&i| self.cells[i].is_some())
            .filter_map(|i| g.square(i))
            .filter(|s| !avoid.contains(s))
            .collect();
        if occupied.is_empty() {
            return;
        }
        let sq = occupied[self.rng.gen_range(0..occupied.len())];
        let piece = self.cells[self.index(sq)].expect("occupied");
        self.wait(100, 400);
        self.up(sq);
        self.wait(300, 2500);
        self.down(sq, piece);
    }

    /// A moment later, the piece on `from` moved onto `to`, standing there
    /// 1 to 4 s, then set back.
    fn stand_and_set_back(&mut self, from: Square, to: Square) {
        let piece = self.cells[self.index(from)].expect("a piece to move");
        self.wait(500, 2_000);
        self.up(from);
        self.wait(60, 200);
        self.down(to, piece);
        self.wait(1_000, 4_000);
        self.up(to);
        self.wait(100, 300);
        self.down(from, piece);
    }

    /// With [`Habits::first_move_knock`], before the first move: a piece
    /// knocked from one of `firsts` (the squares of the first moves onto
    /// empty squares) onto its other square, standing there 1 to 4 s,
    /// then set back.
    pub(super) fn maybe_knock_before_first_move(&mut self, firsts: &[(Square, Square)]) {
        let p = self.habits.first_move_knock;
        if p <= 0.0 || firsts.is_empty() || !self.rng.gen_bool(p) {
            return;
        }
        let (from, to) = firsts[self.rng.gen_range(0..firsts.len())];
        self.stand_and_set_back(from, to);
    }

    /// With [`Habits::second_mover_knock`], before the first move: a piece
    /// of the side that moves second pushed along the mirror of one of
    /// `firsts` (the start position turned round is the same position with
    /// the sides swapped), standing there 1 to 4 s, then set back.
    pub(super) fn maybe_push_second_mover(&mut self, firsts: &[(Square, Square)]) {
        let p = self.habits.second_mover_knock;
        if p <= 0.0 || firsts.is_empty() || !self.rng.gen_bool(p) {
            return;
        }
        let g = self.game.geometry();
        let mirror = |s: Square| Square::new(g.files() - 1 - s.file, g.ranks() - 1 - s.rank);
        let (from, to) = firsts[self.rng.gen_range(0..firsts.len())];
        let (from, to) = (mirror(from), mirror(to));
        debug_assert!(self.cells[self.index(to)].is_none(), "a free square");
        self.stand_and_set_back(from, to);
        self.hurry = self.rng.gen_bool(0.5);
    }

    pub(crate) fn think(&mut self) {
        if std::mem::take(&mut self.hurry) {
            self.wait(150, 1_500);
        } else if self.profile.human {
            self.wait(1500, 9000);
        } else {
            self.wait(1000, 3000);
        }
    }

    /// The last ply was completed by the last line sent.
    pub(crate) fn ply_done(&mut self) {
        let at = self.lines.last().map_or(self.t, |(t, _)| *t);
        self.plies.push(at);
    }

    /// The session so far.
    pub(crate) fn session(self) -> OtherGameSession {
        OtherGameSession {
            lines: self.lines,
            plies: self.plies,
        }
    }
}
