//! Xiangqi rules, notation, records and repetition rulings, citing the rule
//! book `xiangqi-association-rules-2022.zh.txt` by article.

use boardcast_rules::xiangqi::notation::{iccs, parse_iccs, parse_wxf, wxf};
use boardcast_rules::xiangqi::pgn::{self, GameResult, Record};
use boardcast_rules::xiangqi::repetition::{
    MoveLimit, Pattern, RepetitionKind, Ruling, Tracker, Verdict,
};
use boardcast_rules::xiangqi::{Kind, Move, Outcome, Position, START_FEN, Side, Square};

fn mv(s: &str) -> Move {
    parse_iccs(s).unwrap()
}

fn sq(s: &str) -> Square {
    parse_iccs(&format!("{s}{s}")).unwrap().from
}

fn perft(p: &Position, d: u32) -> u64 {
    if d == 0 {
        return 1;
    }
    p.legal_moves()
        .iter()
        .map(|m| perft(&p.after(*m).unwrap(), d - 1))
        .sum()
}

/// Small deterministic generator (xorshift64*) for random games.
pub(crate) struct Rng(u64);
impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// A random legal game from the start (at most `max` plies), preferring
/// captures half the time so games end.
pub(crate) fn random_game(seed: u64, max: usize) -> (Vec<Move>, Outcome) {
    let mut rng = Rng::new(seed);
    let mut p = Position::start();
    let mut moves = Vec::new();
    while moves.len() < max {
        let legal = p.legal_moves();
        if legal.is_empty() {
            break;
        }
        let caps: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| p.piece_at(m.to).is_some())
            .collect();
        let m = if !caps.is_empty() && rng.below(2) == 0 {
            caps[rng.below(caps.len())]
        } else {
            legal[rng.below(legal.len())]
        };
        p.play(m).unwrap();
        moves.push(m);
    }
    (moves, p.outcome())
}

#[test]
fn perft_from_the_start_matches_published_counts() {
    let p = Position::start();
    assert_eq!(perft(&p, 1), 44);
    assert_eq!(perft(&p, 2), 1920);
    assert_eq!(perft(&p, 3), 79666);
}

#[test]
fn fen_round_trip_and_start() {
    let p = Position::start();
    assert_eq!(p.fen(), START_FEN);
    assert_eq!(p.turn(), Side::Red);
    assert_eq!(p.piece_at(sq("e0")).unwrap().kind, Kind::General);
    assert_eq!(p.piece_at(sq("h7")).unwrap().kind, Kind::Cannon);
    // `r` for Red and E/H letters are read too.
    let q =
        Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r - - 0 1")
            .unwrap();
    assert_eq!(q, p);
    assert!(
        Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1")
            .is_err()
    );
    assert!(
        Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1")
            .is_err()
    );
}

#[test]
fn a_board_turned_round_maps_every_point_180_degrees() {
    let p = Position::start().after(mv("h2e2")).unwrap();
    let r = p.rotated();
    for i in 0..90 {
        let s = Square::from_index(i).unwrap();
        assert_eq!(r.piece_at(s.rotated()), p.piece_at(s));
    }
    let c = r.piece_at(sq("e7")).unwrap();
    assert_eq!(
        (c.side, c.kind),
        (Side::Red, Kind::Cannon),
        "the red cannon on e2 reads as e7"
    );
    assert_eq!(r.rotated(), p);
    assert_eq!(sq("a0").rotated(), sq("i9"));
}

#[test]
fn flying_general_forbids_leaving_the_generals_face_to_face() {
    // Art. 16 ①: a move that leaves one's own general exposed loses; the
    // generals may not face on an open file. The red cannon on e5 is the
    // only screen.
    let p = Position::from_fen("4k4/9/9/9/4C4/9/9/9/9/4K4 w - - 0 1").unwrap();
    assert!(
        !p.is_legal(mv("e5d5")),
        "moving the only screen away exposes the generals"
    );
    assert!(p.is_legal(mv("e5e6")));
    // The general may not step onto the open file either.
    let q = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap();
    assert!(!q.is_legal(mv("d0e0")));
    assert!(q.is_legal(mv("d0d1")));
}

#[test]
fn palace_and_general_steps() {
    let p = Position::from_fen("5k3/9/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap();
    let mut ms: Vec<String> = p.legal_moves().iter().map(|m| iccs(*m)).collect();
    ms.sort();
    // d0 -> d1 or e0; c0 is outside the palace.
    assert_eq!(ms, vec!["d0d1".to_string(), "d0e0".to_string()]);
}

#[test]
fn horse_leg_and_elephant_eye_block() {
    let p = Position::from_fen("3k5/9/9/9/9/9/9/4P4/4N4/2B1K4 w - - 0 1").unwrap();
    let ms: Vec<String> = p.legal_moves().iter().map(|m| iccs(*m)).collect();
    // Horse on e1: the leg e2 is taken, so e1-d3 and e1-f3 are blocked.
    assert!(!ms.contains(&"e1d3".into()) && !ms.contains(&"e1f3".into()));
    assert!(ms.contains(&"e1c2".into()) && ms.contains(&"e1g0".into()));
    // Elephant on c0: eye d1 free, e2 is taken by the own pawn; eye b1 free, a2 reachable.
    assert!(ms.contains(&"c0a2".into()) && !ms.contains(&"c0e2".into()));
    // An elephant never crosses the river: from c4 only a2 and e2 (not a6, e6).
    let c4 = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1").unwrap();
    let mut c4 = c4;
    c4.set(
        sq("c4"),
        Some(boardcast_rules::xiangqi::Piece {
            side: Side::Red,
            kind: Kind::Elephant,
        }),
    );
    let mut to: Vec<String> = c4
        .legal_moves()
        .iter()
        .filter(|m| m.from == sq("c4"))
        .map(|m| m.to.to_string())
        .collect();
    to.sort();
    assert_eq!(to, vec!["a2", "e2"]);
}

#[test]
fn cannon_needs_exactly_one_screen_to_capture() {
    let p = Position::from_fen("3k5/9/9/9/1p7/9/9/1C7/9/4K4 w - - 0 1").unwrap();
    assert!(
        !p.is_legal(mv("b2b5")),
        "no screen: a cannon cannot capture"
    );
    let q = Position::from_fen("3k5/1r7/9/9/1p7/9/9/1C7/9/4K4 w - - 0 1").unwrap();
    assert!(
        q.is_legal(mv("b2b8")),
        "one screen (b5): the capture is legal"
    );
    assert!(
        !q.is_legal(mv("b2b6")),
        "jumping the screen without capturing is not"
    );
    assert!(q.is_legal(mv("b2b4")));
}

#[test]
fn soldiers_move_sideways_only_after_the_river() {
    let p = Position::start();
    assert!(p.is_legal(mv("a3a4")) && !p.is_legal(mv("a3b3")));
    let q = Position::from_fen("3k5/9/9/9/2P6/9/9/9/9/4K4 w - - 0 1").unwrap();
    assert!(q.is_legal(mv("c5b5")) && q.is_legal(mv("c5d5")) && q.is_legal(mv("c5c6")));
    assert!(!q.is_legal(mv("c5c4")), "never backwards");
}

#[test]
fn checkmate_and_stalemate_both_lose_for_the_side_to_move() {
    // Art. 16: checkmated (绝杀) loses; a general without a move (欠行 /
    // 困毙) loses too.
    let mate = Position::from_fen("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1").unwrap();
    assert!(mate.in_check());
    assert_eq!(mate.outcome(), Outcome::Checkmate { winner: Side::Red });
    let stale = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1").unwrap();
    assert!(!stale.in_check());
    assert_eq!(stale.legal_moves(), vec![]);
    assert_eq!(stale.outcome(), Outcome::Stalemate { winner: Side::Red });
}

#[test]
fn wxf_and_iccs_from_the_start() {
    let p = Position::start();
    assert_eq!(wxf(&p, mv("h2e2")), "C2.5");
    assert_eq!(wxf(&p, mv("h0g2")), "H2+3");
    assert_eq!(wxf(&p, mv("a0a2")), "R9+2");
    assert_eq!(wxf(&p, mv("c0e2")), "E7+5");
    assert_eq!(wxf(&p, mv("f0e1")), "A4+5");
    assert_eq!(parse_wxf(&p, "C2=5").unwrap(), mv("h2e2"));
    assert_eq!(parse_wxf(&p, "N2+3").unwrap(), mv("h0g2"));
    let b = p.after(mv("h2e2")).unwrap();
    // Black counts files from its own right (file a is Black's 1).
    assert_eq!(wxf(&b, mv("h7e7")), "C8.5");
    assert_eq!(wxf(&b, mv("b9c7")), "H2+3");
    assert_eq!(wxf(&b, mv("i9i8")), "R9+1");
    assert_eq!(parse_iccs("H2-E2").unwrap(), mv("h2e2"));
    // Tandem chariots: + front, - rear.
    let t = Position::from_fen("3k5/9/9/9/9/9/9/R8/9/R3K4 w - - 0 1").unwrap();
    assert_eq!(wxf(&t, mv("a2e2")), "R+.5");
    assert_eq!(wxf(&t, mv("a0a1")), "R-+1");
    assert_eq!(parse_wxf(&t, "R-=6").unwrap(), mv("a0d0"));
}

fn tracker_play(fen: &str, moves: &[&str]) -> Vec<Verdict> {
    let mut t = Tracker::new(Position::from_fen(fen).unwrap(), MoveLimit::default());
    let mut all = Vec::new();
    for m in moves {
        all.extend(
            t.push(mv(m))
                .unwrap_or_else(|e| panic!("{e} after {all:?}")),
        );
    }
    all
}

fn repetitions(v: &[Verdict]) -> Vec<&boardcast_rules::xiangqi::repetition::Repetition> {
    v.iter()
        .filter_map(|x| match x {
            Verdict::Repetition(r) => Some(r),
            _ => None,
        })
        .collect()
}

#[test]
fn perpetual_check_must_change() {
    // Art. 16: perpetual check (长将) is forbidden; the checker must change.
    // The red chariot checks along ranks 8 and 9; the black general steps
    // between e8 and e9 (its only answers).
    let fen = "4k4/9/R8/9/9/9/9/9/9/3K5 w - - 0 1";
    // The position after 1. a7a9+ stands again after plies 5 and 9.
    let v = tracker_play(
        fen,
        &[
            "a7a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9", "a8a9",
        ],
    );
    let r = repetitions(&v);
    assert_eq!(r.len(), 1, "{v:?}");
    let r = r[0];
    assert_eq!(r.kind, RepetitionKind::PerpetualCheck);
    assert_eq!(r.side, Some(Side::Red));
    assert_eq!(r.ruling, Ruling::MustChange(Side::Red));
    assert_eq!((r.red, r.black), (Pattern::Check, Pattern::Idle));
    assert_eq!(r.occurrences, 3);
    assert_eq!(r.cycle.len(), 4);
    assert!(
        r.cycle
            .iter()
            .filter(|c| c.side == Side::Red)
            .all(|c| c.check)
    );
    assert_eq!(r.law, "Art. 16");
    assert!(
        r.message().contains("red checks perpetually"),
        "{}",
        r.message()
    );
}

#[test]
fn perpetual_chase_of_an_unprotected_horse_must_change() {
    // WXF (Art. 5) and Art. 16: the red chariot attacks the unprotected
    // black horse on every move; the horse flees c5 <-> b7.
    let fen = "4k4/9/9/9/2n6/9/9/9/9/1R1K5 w - - 0 1";
    let v = tracker_play(
        fen,
        &[
            "b0c0", "c5b7", "c0b0", "b7c5", "b0c0", "c5b7", "c0b0", "b7c5",
        ],
    );
    let r = repetitions(&v);
    assert_eq!(r.len(), 1, "{v:?}");
    let r = r[0];
    assert_eq!(r.kind, RepetitionKind::PerpetualChase);
    assert_eq!(r.side, Some(Side::Red));
    assert_eq!(r.ruling, Ruling::MustChange(Side::Red));
    assert_eq!((r.red, r.black), (Pattern::Chase, Pattern::Idle));
    assert_eq!(r.chased.len(), 1);
    assert_eq!(r.chased[0].target.kind, Kind::Horse);
    assert_eq!(r.chased[0].attacker.kind, Kind::Chariot);
}

#[test]
fn attacking_a_protected_horse_is_not_a_chase() {
    // Same manoeuvre, but a black advisor... a black chariot on the 9th rank
    // protects both of the horse's points (b7 via b-file? no): the black
    // cannon protects nothing; use a chariot on rank 7 covering b7 and a
    // chariot on file c covering c5.
    let fen = "4k4/9/2r6/9/2n6/9/9/9/9/1R1K5 w - - 0 1";
    // The black chariot c7 protects the horse on c5 (file c) and on b7 (rank 7).
    let v = tracker_play(
        fen,
        &[
            "b0c0", "c5b7", "c0b0", "b7c5", "b0c0", "c5b7", "c0b0", "b7c5",
        ],
    );
    let r = repetitions(&v);
    assert_eq!(r.len(), 1, "{v:?}");
    assert_eq!(r[0].kind, RepetitionKind::Repetition);
    assert_eq!(r[0].red, Pattern::Idle);
    assert_eq!(r[0].ruling, Ruling::Draw);
}

#[test]
fn idle_repetition_is_a_draw_if_unchanged() {
    // Art. 17: repetition without a forbidden move: draw.
    let v = tracker_play(
        START_FEN,
        &[
            "h0g2", "h9g7", "g2h0", "g7h9", "h0g2", "h9g7", "g2h0", "g7h9",
        ],
    );
    let r = repetitions(&v);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].kind, RepetitionKind::Repetition);
    assert_eq!(r[0].side, None);
    assert_eq!(r[0].ruling, Ruling::Draw);
    assert_eq!(r[0].law, "Art. 17");
}

#[test]
fn record_round_trip() {
    let (moves, _) = random_game(7, 80);
    let rec = Record {
        tags: vec![
            ("Event".into(), "Test".into()),
            ("Red".into(), "A".into()),
            ("Black".into(), "B".into()),
        ],
        start: Position::start(),
        moves: moves.clone(),
        result: GameResult::Draw,
    };
    let text = pgn::write(&rec).unwrap();
    assert!(text.contains("[Variant \"xiangqi\"]"));
    assert!(text.contains(&format!("[FEN \"{START_FEN}\"]")));
    assert!(text.contains("[Red \"A\"]"));
    assert!(text.trim_end().ends_with("1/2-1/2"));
    let back = pgn::read(&text).unwrap();
    assert_eq!(back.moves, moves);
    assert_eq!(back.result, GameResult::Draw);
}

#[test]
fn move_limit_is_reported_as_a_claim() {
    // Art. 6, 17: the event's limit; reported, not ended.
    let mut t = Tracker::new(
        Position::start(),
        MoveLimit {
            moves: 4,
            checks_counted: 6,
        },
    );
    let ms = ["h0g2", "h9g7", "g2h0", "g7h9", "h0g2", "h9g7", "g2h0"];
    let mut claims = Vec::new();
    for m in ms {
        for v in t.push(mv(m)).unwrap() {
            if let Verdict::MoveLimit(c) = v {
                claims.push(c);
            }
        }
    }
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0].side, Side::Red);
    assert_eq!(claims[0].counted, 4);
    assert_eq!(claims[0].since_ply, 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
    #[test]
    fn random_games_round_trip(seed in 0u64..1_000_000) {
        let (moves, _) = random_game(seed, 120);
        let mut p = Position::start();
        for m in moves {
            let fen = p.fen();
            proptest::prop_assert_eq!(Position::from_fen(&fen).unwrap(), p.clone());
            let w = wxf(&p, m);
            proptest::prop_assert_eq!(parse_wxf(&p, &w).unwrap(), m);
            proptest::prop_assert_eq!(parse_wxf(&p, &w.replace('.', "=")).unwrap(), m);
            proptest::prop_assert_eq!(parse_iccs(&iccs(m)).unwrap(), m);
            let before = p.clone();
            let half = p.halfmoves;
            let cap = p.play(m).unwrap();
            let mut undone = p.clone();
            undone.undo(m, cap, half);
            proptest::prop_assert_eq!(undone, before);
        }
    }
}

const SELFPLAY: &str = include_str!("data/xiangqi-selfplay.pgn");

#[test]
fn self_play_corpus_replays_with_the_results_the_rules_give() {
    // The bundled engine games: every move legal; a win is a mate or a
    // stalemate of the loser (Art. 16); a draw is a move-limit claim or a
    // drawn repetition on the last move (Art. 17); `*` stops at 300 plies.
    let games = pgn::read_all(SELFPLAY).expect("corpus reads");
    assert_eq!(games.len(), 200);
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    assert!(plies > 15_000, "{plies}");
    let mut mates = 0;
    for g in &games {
        let round = &g.tags.iter().find(|(k, _)| k == "Round").unwrap().1;
        let mut t = Tracker::new(g.start.clone(), MoveLimit::default());
        let mut last = Vec::new();
        for m in &g.moves {
            last = t.push(*m).unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        let end = t.position().outcome();
        match g.result {
            GameResult::Win(w) => {
                assert!(
                    matches!(end, Outcome::Checkmate { winner } | Outcome::Stalemate { winner } if winner == w),
                    "round {round}: {end:?}"
                );
                mates += usize::from(matches!(end, Outcome::Checkmate { .. }));
            }
            GameResult::Draw => assert!(
                last.iter().any(|v| matches!(v, Verdict::MoveLimit(_))
                    || matches!(v, Verdict::Repetition(r) if r.ruling == Ruling::Draw)),
                "round {round}: {last:?}"
            ),
            GameResult::Unfinished => {
                assert_eq!(end, Outcome::Ongoing);
                assert_eq!(g.moves.len(), 300, "round {round}");
            }
        }
    }
    assert!(mates > 150, "{mates}");
    // Our writer reproduces the file byte for byte.
    let again: String = games.iter().map(|g| pgn::write(g).unwrap()).collect();
    assert_eq!(again, SELFPLAY);
}

/// Checks the invariants of one position: after every legal move the
/// mover's general cannot be taken (nor face the other); every legal move
/// classifies as legal; every move a piece may make that is not legal
/// leaves its general exposed (Art. 16) and is among the irregular moves.
fn check_position(p: &Position) {
    use boardcast_rules::xiangqi::illegal::{Classification, SeenMove, classify, irregular_moves};
    let legal = p.legal_moves();
    let me = p.turn();
    for m in &legal {
        let q = p.after(*m).unwrap();
        let g = q.general(me).expect("a general");
        assert!(
            !q.attacked_by(g, me.other()),
            "{} leaves {g} capturable",
            iccs(*m)
        );
        assert!(!q.in_check_side(me));
        assert_eq!(
            classify(p, &SeenMove::new(m.from, m.to)),
            Classification::Legal(*m)
        );
    }
    let irregular = irregular_moves(p);
    let mut pseudo = Vec::new();
    for (from, _) in p.pieces(me) {
        p.pseudo_moves_from(from, &mut pseudo);
    }
    for m in pseudo.iter().filter(|m| !legal.contains(m)) {
        let c = classify(p, &SeenMove::new(m.from, m.to));
        assert!(
            matches!(c, Classification::Exposed(_)),
            "{}: {c:?}",
            iccs(*m)
        );
        assert!(
            irregular.iter().any(|i| i.mv == *m),
            "{} not listed",
            iccs(*m)
        );
    }
    for i in &irregular {
        assert!(!legal.contains(&i.mv));
        assert!(p.after_unchecked(i.mv).is_some());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn random_games_keep_the_generals_safe_and_classify_consistently(seed in 0u64..1_000_000) {
        let (moves, outcome) = random_game(seed, 160);
        let mut p = Position::start();
        for m in moves {
            check_position(&p);
            p.play(m).unwrap();
        }
        check_position(&p);
        proptest::prop_assert_eq!(p.outcome(), outcome);
        // Nothing stands on the far side of a lost game: a side without a
        // move is mated or stalemated, never with a general missing.
        proptest::prop_assert!(p.general(Side::Red).is_some() && p.general(Side::Black).is_some());
    }
}
