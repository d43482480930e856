//! A round as the file pairs it: the rounds paired, the boards in the
//! order FIDE publishes them, the byes, the players and their scores
//! before the round.

use super::*;

impl Trf {
    /// The rounds with at least one game paired, in order.
    pub fn paired_rounds(&self) -> Vec<u32> {
        let mut rounds = BTreeSet::new();
        for p in self.players.values() {
            for (i, e) in p.rounds.iter().enumerate() {
                if e.opponent.is_some() && e.colour.is_some() {
                    rounds.insert(i as u32 + 1);
                }
            }
        }
        rounds.into_iter().collect()
    }

    /// The round to read: `asked` (the configured round) when the file
    /// pairs it, else the last round it pairs (the one to be played when
    /// its results are blank); none when it pairs none.
    pub fn round_to_read(&self, asked: Option<u32>) -> Option<u32> {
        let paired = self.paired_rounds();
        match asked {
            Some(r) if paired.contains(&r) => Some(r),
            _ => paired.last().copied(),
        }
    }

    /// A player's score before `round`, in tenths (each earlier round's
    /// result with the default scoring).
    pub fn score_before(&self, start_rank: u32, round: u32) -> u32 {
        self.players.get(&start_rank).map_or(0, |p| {
            p.rounds
                .iter()
                .take(round.saturating_sub(1) as usize)
                .filter_map(|e| e.result)
                .map(Code::tenths)
                .sum()
        })
    }

    /// The boards of `round`: every pair with colours, numbered in the
    /// order the FIDE Swiss rules give for publishing pairings (Handbook
    /// C.04.1, "Final Remarks" F.1): by the score of the higher player of
    /// the pair, then the sum of both scores, then the rank of the higher
    /// player; the order pairing programs print.
    ///
    /// Design: the higher player of a pair is the one higher in the
    /// pairing order (C.04.3 A.2): the higher score, on equal scores the
    /// smaller start rank (the pairing number; the file's start ranks are
    /// the initial order). Scores are those before the round, counted from
    /// the file's results with 1 - ½ - 0, a pairing-allocated or full-point
    /// bye worth a win (the points column may already hold this round's).
    /// Byes and unpaired players get no board: the pairing-allocated bye
    /// comes after the last board, as FIDE prints it.
    pub fn boards(&self, round: u32) -> Vec<TrfBoard> {
        let i = round.saturating_sub(1) as usize;
        let mut pairs: Vec<TrfBoard> = Vec::new();
        for p in self.players.values() {
            let Some(e) = p.rounds.get(i) else { continue };
            let (Some(o), Some(Colour::White)) = (e.opponent, e.colour) else {
                continue;
            };
            let theirs = self.players.get(&o).and_then(|q| q.rounds.get(i));
            pairs.push(TrfBoard {
                board: 0,
                white: p.start_rank,
                black: o,
                white_result: e.result,
                black_result: theirs.and_then(|t| t.result),
            });
        }
        pairs.sort_by_key(|b| {
            let (w, k) = (
                self.score_before(b.white, round),
                self.score_before(b.black, round),
            );
            // The higher player: more points, else the smaller start rank.
            let higher = match w.cmp(&k) {
                std::cmp::Ordering::Greater => b.white,
                std::cmp::Ordering::Less => b.black,
                std::cmp::Ordering::Equal => b.white.min(b.black),
            };
            (
                std::cmp::Reverse(w.max(k)),
                std::cmp::Reverse(w + k),
                higher,
            )
        });
        for (n, b) in pairs.iter_mut().enumerate() {
            b.board = n as u32 + 1;
        }
        pairs
    }

    /// The players of `round` without a board: byes and absences, with
    /// their result code (start rank order).
    pub fn byes(&self, round: u32) -> Vec<(u32, Option<Code>)> {
        let i = round.saturating_sub(1) as usize;
        self.players
            .values()
            .filter_map(|p| {
                let e = p.rounds.get(i).copied().unwrap_or_default();
                (e.opponent.is_none() || e.colour.is_none()).then_some((p.start_rank, e.result))
            })
            .collect()
    }

    /// A player as PGN tags and relay tools know them.
    pub fn player(&self, start_rank: u32) -> Player {
        self.players
            .get(&start_rank)
            .map(|p| Player {
                name: if p.name.is_empty() {
                    "?".into()
                } else {
                    p.name.clone()
                },
                fide_id: p.fide_id,
                title: p.title.clone(),
                federation: p.federation.clone(),
                rating: p.rating,
            })
            .unwrap_or_default()
    }

    /// The pairings of `round`, board by board.
    pub fn pairings(&self, round: u32) -> Pairings {
        Pairings {
            round: Some(round),
            pairings: self
                .boards(round)
                .iter()
                .map(|b| Pairing {
                    board: b.board,
                    white: self.player(b.white),
                    black: self.player(b.black),
                })
                .collect(),
        }
    }
}
