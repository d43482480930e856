//! Illegal moves seen on a xiangqi board, classified by the rule book
//! (`xiangqi-association-rules-2022.zh.txt`): Art. 16 (a move that leaves
//! one's own general in check or facing the other loses), Art. 20 (a piece
//! moved to a point it cannot reach, two moves in a row: technical fouls),
//! Art. 4 (the arbiter rules on pieces added or removed).

use boardcast_rules::xiangqi::illegal::{
    Classification, Exposure, Fault, Fouls, Law, Penalty, SeenMove, classify, irregular_moves,
    movement_fault,
};
use boardcast_rules::xiangqi::notation::parse_iccs;
use boardcast_rules::xiangqi::{Move, Position, Side, Square};

fn sq(s: &str) -> Square {
    parse_iccs(&format!("{s}{s}")).unwrap().from
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

fn seen(m: &str) -> SeenMove {
    let m = parse_iccs(m).unwrap();
    SeenMove::new(m.from, m.to)
}

fn class(fen: &str, m: &str) -> Classification {
    classify(&pos(fen), &seen(m))
}

fn fault(fen: &str, m: &str) -> Fault {
    match class(fen, m) {
        Classification::Movement(f) => f,
        c => panic!("{m} in {fen}: {c:?}"),
    }
}

const START: &str = boardcast_rules::xiangqi::START_FEN;

#[test]
fn a_legal_move_is_legal() {
    let c = class(START, "h2e2");
    assert_eq!(c, Classification::Legal(parse_iccs("h2e2").unwrap()));
    assert!(c.is_legal() && c.law().is_none());
    // A capture: the victim on `to` is replaced, listing it as removed is
    // harmless.
    let fen = "3k5/1r7/9/9/1p7/9/9/1C7/9/4K4 w";
    let mut s = seen("b2b8");
    s.removed.push(sq("b8"));
    assert!(classify(&pos(fen), &s).is_legal());
}

#[test]
fn art_16_moving_into_check_loses() {
    // The red general steps onto the file of the black chariot.
    let fen = "3k5/9/9/9/9/9/9/5r3/9/4K4 w";
    let c = class(fen, "e0f0");
    assert_eq!(c, Classification::Exposed(Exposure::IntoCheck));
    assert_eq!(c.law(), Some(Law::Loss));
    assert_eq!(c.law().map(Law::article), Some("16"));
    assert!(c.consequence().contains("Art. 16"));
    // A pinned piece moved off the line exposes the general too.
    let c = class("4k4/9/9/9/4r4/9/9/4R4/9/4K4 w", "e2d2");
    assert_eq!(c, Classification::Exposed(Exposure::IntoCheck));
}

#[test]
fn art_16_not_answering_a_check_loses() {
    // The black chariot on e5 checks; Red moves a soldier instead.
    let c = class("3k5/9/9/9/4r4/9/P8/9/9/4K4 w", "a3a4");
    assert_eq!(c, Classification::Exposed(Exposure::CheckNotAnswered));
    assert_eq!(c.law(), Some(Law::Loss));
}

#[test]
fn art_16_leaving_the_generals_facing_loses() {
    // The red cannon on e5 is the only piece between the generals.
    let c = class("4k4/9/9/9/4C4/9/9/9/9/4K4 w", "e5d5");
    assert_eq!(c, Classification::Exposed(Exposure::GeneralsFacing));
    // The general itself stepping onto the open file.
    let c = class("4k4/9/9/9/9/9/9/9/9/3K5 w", "d0e0");
    assert_eq!(c, Classification::Exposed(Exposure::GeneralsFacing));
    assert_eq!(c.law().map(Law::article), Some("16"));
}

#[test]
fn art_20_a_horse_over_a_blocked_leg() {
    // From the start the red horse on b0 cannot jump to d1: its leg c0 is
    // the elephant.
    assert_eq!(fault(START, "b0d1"), Fault::HorseLegBlocked);
    assert_eq!(fault(START, "b0b3"), Fault::HorseStep);
    let c = class(START, "b0d1");
    assert_eq!(c.law(), Some(Law::TechnicalFoul));
    assert_eq!(c.law().map(Law::article), Some("20"));
    assert!(c.describe().contains("leg"));
}

#[test]
fn art_20_an_elephant_over_a_blocked_eye_or_the_river() {
    let fen = "3k5/9/9/9/9/2B6/9/9/9/4K4 w";
    assert_eq!(fault(fen, "c4e6"), Fault::ElephantCrossedRiver);
    assert_eq!(fault(fen, "c4d5"), Fault::ElephantCrossedRiver);
    let blocked = "3k5/9/9/9/9/9/9/9/3P5/2B1K4 w";
    assert_eq!(fault(blocked, "c0e2"), Fault::ElephantEyeBlocked);
    assert_eq!(fault(blocked, "c0c2"), Fault::ElephantStep);
}

#[test]
fn art_20_an_advisor_or_the_general_out_of_the_palace() {
    assert_eq!(fault(START, "d0c1"), Fault::AdvisorOutOfPalace);
    assert_eq!(fault(START, "f0f1"), Fault::AdvisorStep);
    let fen = "3k5/9/9/9/9/9/9/3K5/9/9 w";
    assert_eq!(fault(fen, "d2c2"), Fault::GeneralOutOfPalace);
    assert_eq!(fault(fen, "d2d3"), Fault::GeneralOutOfPalace);
    assert_eq!(fault(fen, "d2e1"), Fault::GeneralStep);
}

#[test]
fn art_20_a_cannon_needs_exactly_one_screen() {
    // No screen: the red cannon on b2 takes the soldier on b5 as a chariot.
    let fen = "3k5/1r7/9/9/1p7/9/9/1C7/9/4K4 w";
    assert_eq!(fault(fen, "b2b5"), Fault::CannonNoScreen);
    // Over two screens.
    let two = "3k5/1r7/9/1n7/1p7/9/9/1C7/9/4K4 w";
    assert_eq!(fault(two, "b2b8"), Fault::CannonScreens);
    // Passing over a piece without capturing.
    assert_eq!(fault(fen, "b2b6"), Fault::CannonJumped);
    assert_eq!(fault(fen, "b2c3"), Fault::CannonStep);
}

#[test]
fn art_20_a_soldier_backwards_or_sideways_before_the_river() {
    assert_eq!(fault(START, "a3b3"), Fault::SoldierSidewaysBeforeRiver);
    assert_eq!(fault(START, "a3a2"), Fault::SoldierBackwards);
    assert_eq!(fault(START, "a3a5"), Fault::SoldierStep);
    // Across the river sideways is legal, backwards never.
    let fen = "3k5/9/9/9/2P6/9/9/9/9/4K4 w";
    assert!(class(fen, "c5b5").is_legal());
    assert_eq!(fault(fen, "c5c4"), Fault::SoldierBackwards);
    // Black's soldiers go down the board.
    let b = pos("3k5/9/9/p8/9/9/9/9/9/4K4 b");
    assert_eq!(
        movement_fault(&b, sq("a6"), sq("a7")),
        Some(Fault::SoldierBackwards)
    );
    assert_eq!(movement_fault(&b, sq("a6"), sq("a5")), None);
}

#[test]
fn art_20_a_chariot_passing_over_a_piece() {
    assert_eq!(fault(START, "a0a4"), Fault::ChariotBlocked);
    assert_eq!(fault(START, "a0b1"), Fault::ChariotStep);
    // Onto its own piece.
    assert_eq!(fault(START, "a0a3"), Fault::OwnPiece);
}

#[test]
fn art_20_moving_twice_in_a_row() {
    let c = class(START, "h7e7");
    assert_eq!(c, Classification::OutOfTurn);
    assert_eq!(c.law(), Some(Law::TechnicalFoul));
    assert_eq!(class(START, "e5e6"), Classification::NoPiece);
    assert_eq!(Classification::NoPiece.law(), None);
}

#[test]
fn art_4_pieces_added_or_removed_are_for_the_arbiter() {
    let mut s = seen("h2e2");
    s.added.push(sq("e5"));
    let c = classify(&pos(START), &s);
    assert_eq!(c, Classification::AddedPiece);
    assert_eq!(c.law().map(Law::article), Some("4"));
    let mut s = seen("h2e2");
    s.removed.push(sq("a9"));
    assert_eq!(
        classify(&pos(START), &s),
        Classification::WrongRemoval {
            expected: parse_iccs("h2e2").unwrap()
        }
    );
}

#[test]
fn art_16_and_20_a_second_technical_foul_loses() {
    let mut f = Fouls::default();
    let foul = Classification::Movement(Fault::HorseLegBlocked);
    assert_eq!(f.record(Side::Red, &foul), Some(Penalty::Foul));
    assert_eq!(f.record(Side::Black, &foul), Some(Penalty::Foul));
    assert_eq!(f.record(Side::Red, &foul), Some(Penalty::Loss));
    assert_eq!(f.count(Side::Red), 2);
    let selfcheck = Classification::Exposed(Exposure::IntoCheck);
    assert_eq!(f.record(Side::Black, &selfcheck), Some(Penalty::Loss));
    assert_eq!(f.count(Side::Black), 1, "a self-check is no technical foul");
    assert_eq!(
        f.record(Side::Black, &Classification::AddedPiece),
        Some(Penalty::ArbiterRules)
    );
    assert_eq!(f.record(Side::Black, &Classification::NoPiece), None);
}

#[test]
fn irregular_moves_name_what_players_get_wrong() {
    let p = pos(START);
    let irr = irregular_moves(&p);
    let find = |m: &str| {
        let m = parse_iccs(m).unwrap();
        irr.iter()
            .find(|i| i.mv == m)
            .map(|i| i.classification.clone())
    };
    assert_eq!(
        find("b0d1"),
        Some(Classification::Movement(Fault::HorseLegBlocked))
    );
    assert_eq!(find("c0e2"), None, "the elephant's eye is free: legal");
    assert_eq!(
        find("a3b3"),
        Some(Classification::Movement(Fault::SoldierSidewaysBeforeRiver))
    );
    assert_eq!(
        find("d0c1"),
        Some(Classification::Movement(Fault::AdvisorOutOfPalace))
    );
    // The cannon taking the horse on b9 over two screens, or the soldier
    // on b... with no screen: the first piece up the file is b7's cannon.
    assert_eq!(
        find("b2b7"),
        Some(Classification::Movement(Fault::CannonNoScreen))
    );
    assert_eq!(find("b2b9"), None, "one screen (b7): legal");
    // Nothing legal, nothing onto an own piece.
    let legal = p.legal_moves();
    for i in &irr {
        assert!(!legal.contains(&i.mv), "{:?}", i.mv);
        assert!(p.after_unchecked(i.mv).is_some());
        assert!(!i.classification.is_legal());
        let _ = i.law();
    }
    // In check: every move that does not answer it is listed.
    let p = pos("3k5/9/9/9/4r4/9/P8/9/9/4K4 w");
    let irr = irregular_moves(&p);
    let m = parse_iccs("a3a4").unwrap();
    assert!(
        irr.iter().any(|i| i.mv == m
            && i.classification == Classification::Exposed(Exposure::CheckNotAnswered))
    );
    // The screen stepping off the generals' file.
    let p = pos("4k4/9/9/9/4C4/9/9/9/9/4K4 w");
    let m = parse_iccs("e5d5").unwrap();
    assert!(irregular_moves(&p).iter().any(
        |i| i.mv == m && i.classification == Classification::Exposed(Exposure::GeneralsFacing)
    ));
}

#[test]
fn a_position_after_an_illegal_move_is_what_the_board_shows() {
    let p = pos(START);
    let m = parse_iccs("b0d1").unwrap();
    let q = p.after_unchecked(m).unwrap();
    assert_eq!(q.turn(), Side::Black);
    assert_eq!(q.piece_at(sq("d1")), p.piece_at(sq("b0")));
    assert!(q.piece_at(sq("b0")).is_none());
    assert!(
        p.after_unchecked(parse_iccs("a0a3").unwrap()).is_none(),
        "own piece"
    );
    assert!(
        p.after_unchecked(parse_iccs("e5e6").unwrap()).is_none(),
        "no piece"
    );
    let _: Move = m;
}
