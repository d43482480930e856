//! English draughts: one test per article of the rule book
//! (`english-draughts-rules.zh.txt`, cited as it numbers them), property
//! tests over random games, and the bundled corpus.

use boardcast_rules::draughts::{
    Classification, Color, FORTY_MOVE_PLIES, Game, Law, Move, Offences, Outcome, Penalty, Position,
    PseudoMove, Square, Touch, Verdict, classify, moves_toward, read_pdn, touch, write_pdn,
};
use proptest::prelude::*;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).expect("test FEN")
}

fn ids(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(Move::id).collect();
    v.sort();
    v
}

fn sq(n: u8) -> Square {
    Square::new(n).expect("square")
}

fn seen(from: u8, to: u8, removed: &[u8]) -> PseudoMove {
    PseudoMove {
        from: sq(from),
        to: sq(to),
        removed: removed.iter().map(|&n| sq(n)).collect(),
        added: Vec::new(),
    }
}

fn play(p: &mut Position, text: &str) -> Move {
    let m = Move::parse(text, p).expect("legal in test");
    p.play(&m);
    m
}

#[test]
fn art_1_11_set_up() {
    let start = Position::start();
    assert_eq!(
        start.fen(),
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    assert_eq!(pos("B:W21-32:B1-12"), start);
    assert_eq!(pos("B:B1-12:W21-32."), start);
    assert_eq!(start.count(Color::Black), 12);
    assert_eq!(start.count(Color::White), 12);
    assert_eq!(Law::SetUp.article(), "1.11");
    // Occupancy: ranks 1-3 and 6-8 dark squares, `a1` (bit 0) included.
    let occ = start.occupancy();
    assert_eq!(occ.count_ones(), 24);
    assert_eq!(occ & 0xFF, 0b0101_0101);
    assert_eq!(occ & (0xFF << 24), 0);
    assert_eq!(Square::from_coord("a1").map(|s| s.number()), Ok(4));
}

#[test]
fn art_1_13_black_moves_first() {
    let start = Position::start();
    assert_eq!(start.turn(), Color::Black);
    assert_eq!(
        ids(&start),
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
}

#[test]
fn art_1_14_man_moves_one_square_forward() {
    assert_eq!(ids(&pos("B:W:B14")), ["14-17", "14-18"]);
    assert_eq!(ids(&pos("W:W14:B")), ["14-10", "14-9"]);
    // On the edge only one way.
    assert_eq!(ids(&pos("B:W:B12")), ["12-16"]);
}

#[test]
fn art_1_15_crowning_ends_the_move() {
    let mut p = pos("B:W:B27");
    let m = play(&mut p, "27-31");
    assert!(m.is_crowning());
    assert!(p.piece_at(sq(31)).is_some_and(|x| x.is_king()));
    assert_eq!(p.turn(), Color::White);
    assert_eq!(p.fen(), "W:W:BK31");
    let mut w = pos("W:W7:B");
    play(&mut w, "7-3");
    assert_eq!(w.fen(), "B:WK3:B");
}

#[test]
fn art_1_16_king_moves_both_ways() {
    assert_eq!(ids(&pos("B:W:BK14")), ["14-10", "14-17", "14-18", "14-9"]);
    assert_eq!(ids(&pos("W:WK14:B")), ["14-10", "14-17", "14-18", "14-9"]);
}

#[test]
fn art_1_17_capture_by_jumping() {
    let mut p = pos("B:W18:B14");
    assert_eq!(ids(&p), ["14x23"]);
    let m = play(&mut p, "14x23");
    assert_eq!(m.captured(), [sq(18)]);
    assert_eq!(p.fen(), "W:W:B23");
    // No jump onto an occupied square.
    assert_eq!(ids(&pos("B:W18,23:B14")), ["14-17"]);
}

#[test]
fn art_1_18_multi_jump_continues_and_crowning_stops_it() {
    assert_eq!(ids(&pos("B:W18,27:B14")), ["14x23x32"]);
    // 22x31 crowns on 31; as a king it could jump 27 next, but the move ends.
    let p = pos("B:W26,27:B22");
    assert_eq!(ids(&p), ["22x31"]);
    assert_eq!(p.after(&p.legal_moves()[0]).fen(), "W:W27:BK31");
}

#[test]
fn art_1_19_compulsory_capture_free_choice_each_piece_once() {
    // Captures only; a single and a double capture both allowed (no majority rule).
    assert_eq!(ids(&pos("B:W15,18,27:B10,14,1")), ["10x19", "14x23x32"]);
    // A king's ring of four: ends on its own origin, never jumps a piece twice.
    let p = pos("B:W10,11,18,19:BK14");
    assert_eq!(ids(&p), ["14x23x16x7x14", "14x7x16x23x14"]);
    for m in p.legal_moves() {
        let mut c = m.captured().to_vec();
        c.sort();
        c.dedup();
        assert_eq!(c.len(), 4);
        assert_eq!(p.after(&m).fen(), "W:W:BK14");
    }
    assert_eq!(Law::CompulsoryCapture.article(), "1.19");
}

#[test]
fn art_1_20_king_captures_backwards() {
    assert_eq!(ids(&pos("B:W10:BK14")), ["14x7"]);
    assert_eq!(ids(&pos("B:W10:B14")), ["14-17", "14-18"]);
}

#[test]
fn every_law_cites_the_books_article() {
    // The book's numbering (english-draughts-rules.zh.txt), one lower than
    // the English WCDF text from 1.14 on; the second "1.25" is condonation.
    let table = [
        (Law::SetUp, "1.11"),
        (Law::FirstMove, "1.13"),
        (Law::ManMove, "1.14"),
        (Law::Crowning, "1.15"),
        (Law::KingMove, "1.16"),
        (Law::Capture, "1.17"),
        (Law::MultiJump, "1.18"),
        (Law::CompulsoryCapture, "1.19"),
        (Law::KingCapture, "1.20"),
        (Law::Adjust, "1.21"),
        (Law::TouchMove, "1.22"),
        (Law::TouchDirection, "1.23"),
        (Law::IllegalMove, "1.24"),
        (Law::FailToCapture, "1.25.1"),
        (Law::UnmovablePiece, "1.25.2"),
        (Law::WrongSquare, "1.25.3"),
        (Law::ManBackwards, "1.25.4"),
        (Law::WrongRemoval, "1.25.5"),
        (Law::AddedPiece, "1.25.6"),
        (Law::PastKingRow, "1.25.7"),
        (Law::OutOfTurn, "1.25.8"),
        (Law::Condonation, "1.25"),
        (Law::Displaced, "1.26"),
        (Law::NoLegalMove, "1.29"),
        (Law::OtherWin, "1.30"),
        (Law::DrawAgreed, "1.31"),
        (Law::Repetition, "1.32.1"),
        (Law::FortyMoves, "1.32.2"),
    ];
    for (law, article) in table {
        assert_eq!(law.article(), article, "{law:?}");
    }
}

#[test]
fn art_1_22_a_touched_piece_must_be_moved() {
    let p = Position::start();
    match touch(&p, sq(11)) {
        Touch::MustMove(moves) => {
            let mut ids: Vec<String> = moves.iter().map(Move::id).collect();
            ids.sort();
            assert_eq!(ids, ["11-15", "11-16"]);
        }
        t => panic!("{t:?}"),
    }
    assert_eq!(touch(&p, sq(11)).law().map(Law::article), Some("1.22"));
    // The opponent's pieces and empty squares commit to nothing.
    assert_eq!(touch(&p, sq(21)), Touch::Opponent);
    assert_eq!(touch(&p, sq(14)), Touch::Empty);
    assert_eq!(touch(&p, sq(21)).law(), None);
}

#[test]
fn art_1_25_2_touching_a_piece_that_cannot_move() {
    // The man on 1 is blocked by its own men on 5 and 6.
    let p = Position::start();
    assert_eq!(touch(&p, sq(1)), Touch::Unmovable);
    assert_eq!(touch(&p, sq(1)).law().map(Law::article), Some("1.25.2"));
    // With a capture due (14x23), a man that cannot capture is unmovable
    // although its plain steps are free (art. 1.19).
    let p = pos("B:W18:B14,1");
    assert_eq!(touch(&p, sq(1)), Touch::Unmovable);
    assert!(matches!(touch(&p, sq(14)), Touch::MustMove(m) if m.len() == 1));
}

#[test]
fn art_1_23_a_piece_moved_toward_a_direction_must_go_that_way() {
    let p = pos("B:W:BK14");
    let toward = |p: &Position, from: u8, to: u8| -> Vec<String> {
        moves_toward(p, sq(from), sq(to))
            .iter()
            .map(Move::id)
            .collect()
    };
    assert_eq!(toward(&p, 14, 18), ["14-18"]);
    assert_eq!(toward(&p, 14, 9), ["14-9"]);
    // A capture whose first jump goes that way; no plain move while a
    // capture is due.
    let p = pos("B:W18,27:BK14");
    assert_eq!(toward(&p, 14, 18), ["14x23x32"]);
    assert!(toward(&p, 14, 10).is_empty());
    // Not a diagonal neighbour.
    assert!(toward(&p, 14, 23).is_empty());
}

#[test]
fn art_1_24_warning_then_forfeit() {
    let mut o = Offences::default();
    assert_eq!(o.record(Color::Black), Penalty::Warning);
    assert_eq!(o.record(Color::White), Penalty::Warning);
    assert_eq!(o.record(Color::Black), Penalty::Forfeit);
    assert_eq!(o.count(Color::Black), 2);
    assert_eq!(Law::IllegalMove.article(), "1.24");
}

#[test]
fn art_1_25_1_capture_not_taken_or_not_completed() {
    let p = pos("B:W15,18,27:B10,14,1");
    let c = classify(&p, &seen(1, 5, &[]));
    assert!(matches!(&c, Classification::MissedCapture { available } if available.len() == 2));
    assert_eq!(c.law().map(Law::article), Some("1.25.1"));
    let c = classify(&p, &seen(14, 17, &[]));
    assert!(matches!(c, Classification::MissedCapture { .. }));
    for removed in [&[][..], &[18][..]] {
        let c = classify(&p, &seen(14, 23, removed));
        assert!(
            matches!(&c, Classification::IncompleteJump { continuations } if continuations[0].id() == "14x23x32"),
            "{c:?}"
        );
        assert_eq!(c.law(), Some(Law::FailToCapture));
    }
    assert!(classify(&p, &seen(14, 32, &[18, 27])).is_legal());
    assert!(classify(&p, &seen(10, 19, &[15])).is_legal());
}

#[test]
fn art_1_25_1_a_kings_ring_stopped_halfway() {
    // The king's ring of four stopped on 16 after two jumps: either way
    // round while nothing is removed, one way once 18 (and 19) are.
    let p = pos("B:W10,11,18,19:BK14");
    for (removed, ways) in [(&[][..], 2), (&[18][..], 1), (&[18, 19][..], 1)] {
        let c = classify(&p, &seen(14, 16, removed));
        assert!(
            matches!(&c, Classification::IncompleteJump { continuations } if continuations.len() == ways),
            "{removed:?}: {c:?}"
        );
    }
}

#[test]
fn art_1_25_3_a_capture_landing_on_a_wrong_square() {
    // 14x23 lands on 23; set down on 27 instead.
    let c = classify(&pos("B:W18:B14"), &seen(14, 27, &[18]));
    assert_eq!(c, Classification::WrongSquare);
    assert_eq!(c.law().map(Law::article), Some("1.25.3"));
    // A king two squares away without a capture.
    assert_eq!(
        classify(&pos("B:W:BK14"), &seen(14, 23, &[])),
        Classification::WrongSquare
    );
}

#[test]
fn art_1_25_4_a_man_capturing_backwards() {
    // A man may not jump backwards (art. 1.17: forward), only a king.
    let c = classify(&pos("B:W10:B14,1"), &seen(14, 7, &[10]));
    assert_eq!(c, Classification::ManBackwards);
    assert!(classify(&pos("B:W10:BK14"), &seen(14, 7, &[10])).is_legal());
}

#[test]
fn art_1_25_5_own_piece_removed_in_a_capture() {
    let c = classify(&pos("B:W18:B14,1"), &seen(14, 23, &[18, 1]));
    assert!(matches!(&c, Classification::WrongRemoval { expected } if expected.id() == "14x23"));
    // Nothing removed at all from a capture that lands right.
    let c = classify(&pos("B:W18:B14,1"), &seen(14, 23, &[]));
    assert!(matches!(c, Classification::WrongRemoval { .. }), "{c:?}");
}

#[test]
fn a_circular_capture_stopped_where_it_ends_is_incomplete_not_a_wrong_removal() {
    // A king's capture that lands on 23 twice: stopped there after its
    // first jump, the board shows the right ends with pieces still to
    // take (art. 1.19, 1.25.1; found by the property test below).
    let p = pos("W:WK32:B1,17,18,25,26,27");
    let m = p
        .legal_moves()
        .into_iter()
        .find(|m| m.path()[1..m.path().len() - 1].contains(&m.to()))
        .expect("a circular capture");
    let c = classify(&p, &seen(32, m.to().number(), &[m.captured()[0].number()]));
    assert!(
        matches!(c, Classification::IncompleteJump { .. }),
        "{}: {c:?}",
        m.id()
    );
    assert_eq!(c.law().map(Law::article), Some("1.25.1"));
    // A piece the capture does not take, removed: still art. 1.25.5.
    let c = classify(
        &p,
        &seen(32, m.to().number(), &[m.captured()[0].number(), 1]),
    );
    assert!(matches!(c, Classification::WrongRemoval { .. }), "{c:?}");
}

#[test]
fn art_1_25_8_a_capture_out_of_turn() {
    // White jumps while Black is to move.
    let c = classify(&pos("B:W18:B14"), &seen(18, 9, &[14]));
    assert_eq!(c, Classification::OutOfTurn);
}

#[test]
fn art_1_25_3_wrong_square() {
    let p = pos("B:W:B14");
    assert_eq!(
        classify(&p, &seen(14, 22, &[])),
        Classification::WrongSquare
    );
    assert_eq!(classify(&p, &seen(13, 17, &[])), Classification::NoPiece);
    assert_eq!(Classification::WrongSquare.law(), Some(Law::WrongSquare));
}

#[test]
fn art_1_25_4_man_moved_backwards() {
    let c = classify(&pos("B:W:B14"), &seen(14, 10, &[]));
    assert_eq!(c, Classification::ManBackwards);
    assert_eq!(c.law().map(Law::article), Some("1.25.4"));
    assert!(classify(&pos("B:W:BK14"), &seen(14, 10, &[])).is_legal());
}

#[test]
fn art_1_25_5_wrong_pieces_removed() {
    let p = pos("B:W18,27:B14,1");
    let c = classify(&p, &seen(14, 32, &[18, 1]));
    assert!(matches!(&c, Classification::WrongRemoval { expected } if expected.id() == "14x23x32"));
    assert_eq!(c.law().map(Law::article), Some("1.25.5"));
}

#[test]
fn art_1_25_6_pieces_added() {
    let mut s = seen(14, 17, &[]);
    s.added.push(sq(1));
    let c = classify(&pos("B:W:B14"), &s);
    assert_eq!(c, Classification::AddedPiece);
    assert_eq!(c.law().map(Law::article), Some("1.25.6"));
}

#[test]
fn art_1_25_7_man_jumped_on_past_the_king_row() {
    let c = classify(&pos("B:W26,27:B22"), &seen(22, 24, &[26, 27]));
    assert_eq!(c, Classification::PastKingRow);
    assert_eq!(c.law().map(Law::article), Some("1.25.7"));
}

#[test]
fn art_1_25_8_out_of_turn() {
    let c = classify(&pos("B:W21:B14"), &seen(21, 17, &[]));
    assert_eq!(c, Classification::OutOfTurn);
    assert_eq!(c.law().map(Law::article), Some("1.25.8"));
}

#[test]
fn art_1_29_win_when_the_opponent_cannot_move() {
    // All captured.
    let mut g = Game::from_position(pos("B:W18:B14"));
    let m = g.position().legal_moves()[0].clone();
    assert_eq!(
        g.play(&m),
        [Verdict::Win {
            winner: Color::Black,
            law: Law::NoLegalMove
        }]
    );
    // All blocked: White's man on 5 (h2) can only go to 1, which is taken.
    let mut g = Game::from_position(pos("B:W5:B1,14"));
    let m = Move::parse("14-17", g.position()).unwrap();
    let v = g.play(&m);
    assert!(matches!(
        v[..],
        [Verdict::Win {
            winner: Color::Black,
            ..
        }]
    ));
    assert_eq!(Law::NoLegalMove.article(), "1.29");
    // And not before.
    assert!(Game::from_position(pos("W:W5:B6,14")).verdicts().is_empty());
}

#[test]
fn art_1_32_1_third_repetition_claimable() {
    let mut g = Game::from_position(pos("B:WK32:BK1"));
    let cycle = ["1-5", "32-28", "5-1", "28-32"];
    let mut claims = Vec::new();
    for ply in 0..8 {
        let m = Move::parse(cycle[ply % 4], g.position()).unwrap();
        let v = g.play(&m);
        claims.push(v.contains(&Verdict::DrawClaimable {
            law: Law::Repetition,
        }));
    }
    // The start position stands for the 3rd time after ply 8 only.
    assert_eq!(
        claims,
        [false, false, false, false, false, false, false, true]
    );
    assert_eq!(g.repetitions(), 3);
    g.undo();
    assert_eq!(g.repetitions(), 2);
    assert_eq!(Law::Repetition.article(), "1.32.1");
}

#[test]
fn art_1_32_2_forty_moves_without_advance_or_capture() {
    // Kings shuffle on a board where a Black man stands still; 80 plies = 40 each.
    let mut g = Game::from_position(pos("B:WK32,K24:BK1,12"));
    let cycle = ["1-5", "32-28", "5-1", "28-32"];
    for ply in 0..FORTY_MOVE_PLIES as usize {
        let m = Move::parse(cycle[ply % 4], g.position()).unwrap();
        let v = g.play(&m);
        let forty = v.contains(&Verdict::DrawClaimable {
            law: Law::FortyMoves,
        });
        assert_eq!(
            forty,
            ply + 1 == FORTY_MOVE_PLIES as usize,
            "ply {}",
            ply + 1
        );
    }
    // A man move resets the count.
    let m = Move::parse("12-16", g.position()).unwrap();
    g.play(&m);
    assert_eq!(g.quiet_plies(), 0);
    g.undo();
    assert_eq!(g.quiet_plies(), FORTY_MOVE_PLIES);
    assert_eq!(Law::FortyMoves.article(), "1.32.2");
}

#[test]
fn notation_short_and_full_path() {
    // Two ways from 10 to 26: the short form would be ambiguous.
    let p = pos("B:W14,15,22,23:B10,K9");
    let mut texts: Vec<String> = p.legal_moves().iter().map(|m| m.notation(&p)).collect();
    texts.sort();
    assert_eq!(texts, ["10x17x26", "10x19x26", "9x11", "9x25", "9x27"]);
    assert!(Move::parse("10x26", &p).is_err());
    assert_eq!(
        Move::parse("10x19x26", &p).unwrap().captured(),
        [sq(15), sq(23)]
    );
    assert_eq!(Move::parse("9x27", &p).unwrap().id(), "9x18x27");
    assert_eq!(
        Move::parse("14x23x32", &pos("B:W18,27:B14"))
            .unwrap()
            .notation(&pos("B:W18,27:B14")),
        "14x32"
    );
    assert!(Move::parse("11-14", &Position::start()).is_err());
}

/// Plays a random game from `choices`, checking the invariants at each ply.
fn walk(choices: &[u16]) {
    let mut game = Game::new();
    for &c in choices {
        let p = *game.position();
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        // FEN round trip.
        assert_eq!(Position::from_fen(&p.fen()).unwrap(), p);
        // Every move's path is consistent with its captures.
        for m in &moves {
            let path = m.path();
            let jump = m.is_capture();
            assert_eq!(m.captured().len(), if jump { path.len() - 1 } else { 0 });
            for (i, w) in path.windows(2).enumerate() {
                let df = (w[1].file() as i8 - w[0].file() as i8).abs();
                let dr = (w[1].rank() as i8 - w[0].rank() as i8).abs();
                let step = if jump { 2 } else { 1 };
                assert_eq!((df, dr), (step, step), "{m:?}");
                if jump {
                    let mid = Square::from_file_rank(
                        (w[0].file() + w[1].file()) / 2,
                        (w[0].rank() + w[1].rank()) / 2,
                    );
                    assert_eq!(mid, Some(m.captured()[i]));
                    assert_eq!(
                        p.piece_at(m.captured()[i]).map(|x| x.color),
                        Some(p.turn().opponent())
                    );
                }
            }
            // Notation and id read back to the same move.
            assert_eq!(Move::parse(&m.id(), &p).unwrap(), *m);
            let back = Move::parse(&m.notation(&p), &p).unwrap();
            assert_eq!(p.after(&back), p.after(m));
            // Classifying the move as seen on a board says legal.
            let s = PseudoMove {
                from: m.from(),
                to: m.to(),
                removed: m.captured().to_vec(),
                added: Vec::new(),
            };
            assert!(classify(&p, &s).is_legal());
        }
        // Captures are compulsory.
        assert_eq!(moves.iter().all(Move::is_capture), p.has_capture());
        // Injected faults are recognised: a plain step while a capture was
        // due, and every capture stopped on an intermediate landing square.
        if p.has_capture() {
            for m in p.plain_moves() {
                let c = classify(
                    &p,
                    &PseudoMove {
                        from: m.from(),
                        to: m.to(),
                        removed: Vec::new(),
                        added: Vec::new(),
                    },
                );
                assert!(
                    matches!(c, Classification::MissedCapture { .. }),
                    "{m:?}: {c:?}"
                );
                assert_eq!(c.law(), Some(Law::FailToCapture));
            }
        }
        for m in moves.iter().filter(|m| m.path().len() > 2) {
            for i in 1..m.path().len() - 1 {
                let c = classify(
                    &p,
                    &PseudoMove {
                        from: m.from(),
                        to: m.path()[i],
                        removed: m.captured()[..i].to_vec(),
                        added: Vec::new(),
                    },
                );
                assert!(
                    matches!(c, Classification::IncompleteJump { .. }) || c.is_legal(),
                    "{m:?} stopped at {i}: {c:?}"
                );
            }
        }
        let m = &moves[usize::from(c) % moves.len()];
        // Play/undo round trip on the position and the game.
        let mut q = p;
        let u = q.play(m);
        q.undo(m, u);
        assert_eq!(q, p);
        game.play(m);
        assert_eq!(game.undo().as_ref(), Some(m));
        assert_eq!(*game.position(), p);
        game.play(m);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_games_keep_invariants(choices in proptest::collection::vec(any::<u16>(), 0..160)) {
        walk(&choices);
    }
}

const CORPUS: &str = include_str!("data/english-draughts.pdn");

#[test]
fn corpus_replays_and_round_trips() {
    let games = read_pdn(CORPUS).expect("corpus reads");
    assert_eq!(games.len(), 200);
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    assert!(plies > 10_000, "{plies}");
    for g in &games {
        let mut game = Game::from_position(g.start);
        let mut last = Vec::new();
        for m in &g.moves {
            assert!(game.position().legal_moves().contains(m));
            last = game.play(m);
        }
        let expected = match last.first() {
            Some(Verdict::Win { winner, .. }) => Outcome::Win(*winner),
            Some(Verdict::DrawClaimable { .. }) => Outcome::Draw,
            None => Outcome::Unknown,
        };
        assert_eq!(g.outcome, expected, "round {:?}", g.tag("Round"));
    }
    // Our writer reproduces the file byte for byte.
    assert_eq!(write_pdn(&games), CORPUS);
}

#[test]
fn pdn_with_fen_start_and_white_first() {
    let mut g = boardcast_rules::draughts::PdnGame::new();
    g.start = pos("W:W14,15,22,23,K30:B10,K9,3");
    let mut p = g.start;
    for _ in 0..6 {
        let m = p.legal_moves().into_iter().next().unwrap();
        p.play(&m);
        g.moves.push(m);
    }
    g.outcome = Outcome::Draw;
    let text = g.to_pdn();
    assert!(
        text.contains("[FEN \"W:W14,15,22,23,K30:B3,K9,10\"]"),
        "{text}"
    );
    assert!(text.contains("1... "), "{text}");
    assert!(text.trim_end().ends_with("1-1"));
    let back = read_pdn(&text).unwrap();
    assert_eq!(back, vec![g]);
}
