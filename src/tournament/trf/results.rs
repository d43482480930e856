//! A round's results written back into the file: every board's result
//! filled in from the games, the points changed by the difference, and
//! what the file says otherwise named as a conflict; every other byte as
//! read.

use super::*;

impl Trf {
    /// The boards of `round` whose game (`results`: board to `1-0`, `0-1`,
    /// `1/2-1/2`; `*` and others count as no result) says another result
    /// than the file holds.
    pub fn conflicts(&self, round: u32, results: &BTreeMap<u32, String>) -> Vec<Conflict> {
        self.fill_results(round, results).conflicts
    }

    /// [`Trf::conflicts`], the boards in `swapped` played with the colours
    /// reversed (see [`Trf::fill_played`]).
    pub fn conflicts_played(
        &self,
        round: u32,
        results: &BTreeMap<u32, String>,
        swapped: &BTreeSet<u32>,
    ) -> Vec<Conflict> {
        self.fill_played(round, results, swapped).conflicts
    }

    /// [`Trf::fill_played`] with every board played as paired.
    pub fn fill_results(&self, round: u32, results: &BTreeMap<u32, String>) -> Filled {
        self.fill_played(round, results, &BTreeSet::new())
    }

    /// The file with `round`'s results filled in from `results` (board to
    /// `1-0`, `0-1`, `1/2-1/2`; `*` leaves the board as it is): the result
    /// column of both players, and their points changed by the difference
    /// (so an offset the program put in, an acceleration, stays). A result
    /// the file holds already in other words (`+` for a `1-0`) is kept, and
    /// a forfeit (`+`, `-`) is never overwritten (a game that says
    /// otherwise is a conflict). Every other byte is as read.
    ///
    /// A result is the game's, by the colours as played. On the boards in
    /// `swapped` the players sat the other way round from the pairing
    /// (Law 7.3: a game begun with the colours reversed goes on): each
    /// player, known by start rank, gets the points of the colour they
    /// played, and their colour column says the colour as played.
    pub fn fill_played(
        &self,
        round: u32,
        results: &BTreeMap<u32, String>,
        swapped: &BTreeSet<u32>,
    ) -> Filled {
        let mut lines = self.lines.clone();
        let mut written = Vec::new();
        let mut conflicts = Vec::new();
        for b in self.boards(round) {
            let Some(game) = results.get(&b.board) else {
                continue;
            };
            let Some((played_white, played_black)) = game_codes(game) else {
                continue;
            };
            // The codes of the paired White and the paired Black.
            let turned = swapped.contains(&b.board);
            let (w, k) = if turned {
                (played_black, played_white)
            } else {
                (played_white, played_black)
            };
            let same =
                |file: Option<Code>, new: Code| file.is_some_and(|f| f.tenths() == new.tenths());
            if b.white_result.is_some() || b.black_result.is_some() {
                let differs = b.white_result.is_some_and(|f| !same(Some(f), w))
                    || b.black_result.is_some_and(|f| !same(Some(f), k));
                if differs {
                    conflicts.push(Conflict {
                        board: b.board,
                        white: self.player(b.white).name,
                        black: self.player(b.black).name,
                        file: b.file_result().unwrap_or_default(),
                        game: describe(Some(w), Some(k)).unwrap_or_default(),
                    });
                }
            }
            // A forfeit the arbiter entered stands: a game on that board
            // (a game played anyway, a wrong board) is listed, not written.
            let forfeit = |c: Option<Code>| matches!(c, Some(Code::ForfeitWin | Code::ForfeitLoss));
            if forfeit(b.white_result) || forfeit(b.black_result) {
                continue;
            }
            let mut changed = false;
            for (rank, file, new, colour) in [
                (b.white, b.white_result, w, if turned { b'b' } else { b'w' }),
                (b.black, b.black_result, k, if turned { b'w' } else { b'b' }),
            ] {
                let recolour = turned.then_some(colour);
                if same(file, new) && recolour.is_none() {
                    continue;
                }
                let p = &self.players[&rank];
                let line = &mut lines[p.line - 1];
                line.bytes = self.rewrite(p, &line.bytes, round, file, new, recolour);
                changed = true;
            }
            if changed {
                written.push(b.board);
            }
        }
        let mut bytes = Vec::new();
        for l in &lines {
            bytes.extend_from_slice(&l.bytes);
            bytes.extend_from_slice(l.end);
        }
        Filled {
            bytes,
            written,
            conflicts,
        }
    }

    /// A player's line with `new` as their result of `round` and the points
    /// changed by it, and `colour` (`w`, `b`) as their colour when given.
    fn rewrite(
        &self,
        p: &TrfPlayer,
        bytes: &[u8],
        round: u32,
        old: Option<Code>,
        new: Code,
        colour: Option<u8>,
    ) -> Vec<u8> {
        let strip_bom = p.line == 1 && bytes.starts_with(b"\xEF\xBB\xBF");
        let (bom, raw) = bytes.split_at(if strip_bom { 3 } else { 0 });
        let points = match p.points {
            Some(t) => (t + new.tenths()).saturating_sub(old.map_or(0, Code::tenths)),
            None => {
                let others: u32 = p
                    .rounds
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i as u32 + 1 != round)
                    .filter_map(|(_, e)| e.result)
                    .map(Code::tenths)
                    .sum();
                others + new.tenths()
            }
        };
        let points = format!("{:>4}", format_tenths(points));
        let mut edits: BTreeMap<usize, u8> = BTreeMap::new();
        edits.insert(92 + 10 * (round as usize - 1) + 7, new.letter() as u8);
        if let Some(c) = colour {
            edits.insert(92 + 10 * (round as usize - 1) + 5, c);
        }
        for (k, c) in points.bytes().rev().enumerate() {
            edits.insert(84 - k, c);
        }
        let mut out = bom.to_vec();
        out.extend(edit_columns(raw, p.columns, &edits));
        out
    }
}

/// A board whose game says another result than the pairing file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The board.
    pub board: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The file's result, as words.
    pub file: String,
    /// The game's result (`1-0`, `0-1`, `1/2-1/2`).
    pub game: String,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "board {} ({} - {}): the pairing file has {}, the board's game {}",
            self.board, self.white, self.black, self.file, self.game
        )
    }
}

/// A TRF file with a round's results filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filled {
    /// The file to write.
    pub bytes: Vec<u8>,
    /// The boards whose result was written (it was blank or differed).
    pub written: Vec<u32>,
    /// The boards whose game says another result than the file did.
    pub conflicts: Vec<Conflict>,
}

/// Tenths as the file writes points (`11.5`).
pub(super) fn format_tenths(t: u32) -> String {
    format!("{}.{}", t / 10, t % 10)
}

/// A pair of codes as words.
pub(super) fn describe(white: Option<Code>, black: Option<Code>) -> Option<String> {
    use Code::*;
    let words = match (white?, black) {
        (Win, _) | (UnratedWin, _) if black.is_none_or(|b| b.tenths() == 0) => "1-0",
        (Loss, _) | (UnratedLoss, _) if black.is_none_or(|b| b.tenths() == 10) => "0-1",
        (Draw, _) | (UnratedDraw, _) if black.is_none_or(|b| b.tenths() == 5) => "1/2-1/2",
        (ForfeitWin, Some(ForfeitLoss) | None) => "1-0 by forfeit",
        (ForfeitLoss, Some(ForfeitWin) | None) => "0-1 by forfeit",
        (ForfeitLoss, Some(ForfeitLoss)) => "a double forfeit",
        (Loss, Some(Loss)) => "0-0",
        (w, b) => {
            return Some(format!(
                "{} (white) and {} (black)",
                w.letter(),
                b.map_or(' ', Code::letter)
            ));
        }
    };
    Some(words.to_string())
}

/// A game result (`1-0`, `0-1`, `1/2-1/2`) as the codes of white and
/// black; none for `*` and anything else.
fn game_codes(result: &str) -> Option<(Code, Code)> {
    match result.trim() {
        "1-0" => Some((Code::Win, Code::Loss)),
        "0-1" => Some((Code::Loss, Code::Win)),
        "1/2-1/2" | "½-½" => Some((Code::Draw, Code::Draw)),
        _ => None,
    }
}

/// `raw` with single-byte (ASCII) replacements at columns (1-based), the
/// line padded with spaces to reach them.
pub(super) fn edit_columns(raw: &[u8], columns: Columns, edits: &BTreeMap<usize, u8>) -> Vec<u8> {
    let mut out = raw.to_vec();
    let view = View::new(raw, columns).unwrap_or_else(|| View {
        raw,
        starts: (0..raw.len()).collect(),
    });
    let len = view.starts.len();
    let last = edits.keys().next_back().copied().unwrap_or(0);
    // Pad first (at the end, so no offset moves), then edit right to left.
    out.extend(std::iter::repeat_n(b' ', last.saturating_sub(len)));
    for (&col, &c) in edits.iter().rev() {
        match view.offset(col) {
            Some(from) => {
                let to = view.offset(col + 1).unwrap_or(raw.len());
                out.splice(from..to, [c]);
            }
            None => out[raw.len() + (col - len - 1)] = c,
        }
    }
    out
}
