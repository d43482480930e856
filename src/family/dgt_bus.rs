//! DGT boards in bus mode: several boards on one line, polled in turn.

use std::collections::BTreeMap;

use boardcast_protocols::dgt::bus::{BusBody, BusCommand, BusDecoder, BusRequest};
use boardcast_protocols::reading::Reading;
use boardcast_protocols::stream::StreamError;
use bytes::BytesMut;

use super::{Driver, DriverEvent, Family, LineSettings, dropped};

/// Bus polling options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusOptions {
    /// Addresses expected on the line (a board's address is the numeric
    /// value of its serial number). Boards answering the discovery ping are
    /// added.
    pub addresses: Vec<u16>,
    /// Time between two requests on the line, in ms.
    pub gap_ms: u64,
    /// How long a board has to answer, in ms.
    pub timeout_ms: u64,
    /// Unanswered requests in a row after which a board is missing...
    pub misses: u32,
    /// ... once it has also not answered for this long, in ms: a host or a
    /// USB link that stalls for a moment takes no board off the air.
    pub missing_after_ms: u64,
}

impl Default for BusOptions {
    fn default() -> BusOptions {
        BusOptions {
            addresses: Vec::new(),
            gap_ms: 100,
            timeout_ms: 80,
            misses: 3,
            missing_after_ms: 1000,
        }
    }
}

#[derive(Debug, Default)]
struct Unit {
    /// Its whole board was read since the line was opened (or since it
    /// came back): change lists follow.
    known: bool,
    /// Answered since the line was opened, and not missing since.
    present: bool,
    /// Unanswered requests in a row.
    missed: u32,
    /// When it last answered.
    heard_at: u64,
    /// Reported missing and not back yet: pinged until it answers, so the
    /// caller hears of its return before anything else is asked of it.
    lost: bool,
    /// The last change list was lost: ask for it again.
    repeat: bool,
    /// A command asked for by the caller, sent at the unit's next turn.
    queued: Option<BusCommand>,
}

/// The driver for a DGT bus.
///
/// Hello: a broadcast ping (boards answer at random times within 1100 ms
/// and are added). Then one request every `gap_ms`, to each board in turn:
/// `SendBoard` until its board is known (and after it comes back),
/// `SendChanges` after that, `RepeatChanges` after a lost answer, or what
/// the caller queued with [`DgtBusDriver::request`]. Whole boards are
/// passed on whole (snapshots), change lists as square changes. A board
/// that misses `misses` requests in a row is reported missing
/// ([`DriverEvent::UnitMissing`]; only once it has not answered for
/// `missing_after_ms` either) and pinged until it answers again
/// ([`DriverEvent::UnitFound`]): the caller can then queue a request (its
/// memory) before its whole board is asked for. The others are polled as
/// before. Each board's readings carry its address as the unit.
#[derive(Debug)]
pub struct DgtBusDriver {
    options: BusOptions,
    decoder: BusDecoder,
    buf: BytesMut,
    units: BTreeMap<u16, Unit>,
    /// Waiting for an answer from this unit since this time.
    waiting: Option<(u16, u64)>,
    next_request: u64,
    /// The unit polled last.
    last: Option<u16>,
}

impl DgtBusDriver {
    /// A driver for the boards in `options`.
    pub fn new(options: BusOptions) -> DgtBusDriver {
        let units = options
            .addresses
            .iter()
            .map(|&a| (a, Unit::default()))
            .collect();
        DgtBusDriver {
            options,
            decoder: BusDecoder::new(),
            buf: BytesMut::new(),
            units,
            waiting: None,
            next_request: 0,
            last: None,
        }
    }

    /// The addresses known so far.
    pub fn units(&self) -> Vec<u16> {
        self.units.keys().copied().collect()
    }

    /// Sends `command` to `unit` at its next turn instead of the usual
    /// poll (`SendFromStart` to read a board's memory, `SetStartGame` at a
    /// round's start). A unit not yet known is added.
    pub fn request(&mut self, unit: u16, command: BusCommand) {
        self.units.entry(unit).or_default().queued = Some(command);
    }

    fn next_unit(&self) -> Option<u16> {
        let after = self.last.map_or(0, |a| a.saturating_add(1));
        self.units
            .range(after..)
            .next()
            .or_else(|| self.units.iter().next())
            .map(|(&a, _)| a)
    }
}

impl Driver for DgtBusDriver {
    fn pending(&self) -> usize {
        self.buf.len()
    }

    fn family(&self) -> Family {
        Family::DgtBus
    }

    fn line(&self) -> LineSettings {
        LineSettings::eight_n_one(9600)
    }

    fn reopen(&mut self) {
        self.decoder = BusDecoder::new();
        self.buf.clear();
    }

    fn hello(&mut self, now_ms: u64) -> Vec<u8> {
        for unit in self.units.values_mut() {
            *unit = Unit::default();
        }
        self.waiting = None;
        // Leave the ping answers time to arrive before polling.
        self.next_request = now_ms + 1100;
        BusRequest {
            command: BusCommand::Ping,
            address: 0,
        }
        .to_bytes()
        .to_vec()
    }

    fn tick_ms(&self) -> u64 {
        self.options.timeout_ms.min(self.options.gap_ms).max(1)
    }

    fn poll(&mut self, now_ms: u64, out: &mut Vec<DriverEvent>) -> Vec<u8> {
        if let Some((address, since)) = self.waiting {
            if now_ms < since + self.options.timeout_ms {
                return Vec::new();
            }
            self.waiting = None;
            if let Some(unit) = self.units.get_mut(&address) {
                unit.missed += 1;
                if unit.present
                    && unit.missed >= self.options.misses
                    && now_ms >= unit.heard_at + self.options.missing_after_ms
                {
                    unit.present = false;
                    unit.known = false;
                    unit.lost = true;
                    out.push(DriverEvent::UnitMissing { unit: address });
                }
            }
        }
        if now_ms < self.next_request {
            return Vec::new();
        }
        let Some(address) = self.next_unit() else {
            return Vec::new();
        };
        let Some(unit) = self.units.get_mut(&address) else {
            return Vec::new();
        };
        let command = if unit.lost {
            BusCommand::Ping
        } else if let Some(command) = unit.queued.take() {
            command
        } else if !unit.known {
            BusCommand::SendBoard
        } else if unit.repeat {
            BusCommand::RepeatChanges
        } else {
            BusCommand::SendChanges
        };
        self.last = Some(address);
        self.waiting = Some((address, now_ms));
        self.next_request = now_ms + self.options.gap_ms;
        BusRequest { command, address }.to_bytes().to_vec()
    }

    /// Queues `SendFromStart` for the unit's next turn.
    fn request_memory_of(&mut self, unit: u16) -> Vec<u8> {
        self.request(unit, BusCommand::SendFromStart);
        Vec::new()
    }

    fn feed(&mut self, now_ms: u64, bytes: &[u8], out: &mut Vec<DriverEvent>) {
        self.buf.extend_from_slice(bytes);
        loop {
            let message = match self.decoder.decode(&mut self.buf) {
                Ok(None) => break,
                Ok(Some(m)) => m,
                Err(e) => {
                    if matches!(e, StreamError::BadChecksum { .. })
                        && let Some((address, _)) = self.waiting.take()
                        && let Some(unit) = self.units.get_mut(&address)
                    {
                        unit.repeat = true;
                    }
                    out.push(dropped(&e));
                    continue;
                }
            };
            let address = message.address;
            if self.waiting.is_some_and(|(a, _)| a == address) {
                self.waiting = None;
            }
            let unit = self.units.entry(address).or_default();
            unit.missed = 0;
            unit.heard_at = now_ms;
            unit.lost = false;
            if !unit.present {
                unit.present = true;
                out.push(DriverEvent::UnitFound { unit: address });
            }
            match &message.body {
                // A whole board is passed on whole, as a single DGT board's
                // dump is: after a unit comes back, the reconstructor
                // explains from it what happened while it was away.
                BusBody::BoardDump(dump) => {
                    unit.known = true;
                    out.push(DriverEvent::Reading {
                        unit: address,
                        reading: Reading::Snapshot(boardcast_protocols::dgt::snapshot(dump)),
                    });
                }
                BusBody::FromStart(records) => out.push(DriverEvent::Memory {
                    unit: address,
                    records: boardcast_protocols::dgt::memory(records),
                }),
                BusBody::Changes(_) => {
                    unit.repeat = false;
                    for reading in message.readings() {
                        out.push(DriverEvent::Reading {
                            unit: address,
                            reading,
                        });
                    }
                }
                _ => {
                    out.extend(
                        message
                            .readings()
                            .into_iter()
                            .map(|reading| DriverEvent::Reading {
                                unit: address,
                                reading,
                            }),
                    )
                }
            }
        }
    }
}

/// Whether the bytes a DGT line sent (`from_board`, chunk by chunk) are a
/// bus line's: more bus replies (checksum right) than single-board frames
/// decode from them. A capture labelled `dgt` may hold a bus line.
pub fn is_bus_line<'a>(from_board: impl Iterator<Item = &'a [u8]>) -> bool {
    use boardcast_protocols::dgt::Decoder;
    let (mut bus, mut single) = (BusDecoder::new(), Decoder::new());
    let (mut a, mut b) = (bytes::BytesMut::new(), bytes::BytesMut::new());
    let (mut bus_frames, mut single_frames) = (0usize, 0usize);
    for chunk in from_board {
        a.extend_from_slice(chunk);
        b.extend_from_slice(chunk);
        loop {
            match bus.decode(&mut a) {
                Ok(None) => break,
                Ok(Some(_)) => bus_frames += 1,
                Err(_) => {}
            }
        }
        loop {
            match single.decode(&mut b) {
                Ok(None) => break,
                Ok(Some(_)) => single_frames += 1,
                Err(_) => {}
            }
        }
    }
    bus_frames > single_frames
}

/// The addresses of the boards that answer on a DGT bus line, in order of
/// first answer, from the bytes the line sent (`from_board`).
pub fn units<'a>(from_board: impl Iterator<Item = &'a [u8]>) -> Vec<u16> {
    let mut decoder = BusDecoder::new();
    let mut buf = bytes::BytesMut::new();
    let mut units = Vec::new();
    for chunk in from_board {
        buf.extend_from_slice(chunk);
        loop {
            match decoder.decode(&mut buf) {
                Ok(None) => break,
                Ok(Some(m)) if !units.contains(&m.address) => units.push(m.address),
                _ => {}
            }
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::dgt::bus::BusMessage;
    use boardcast_protocols::dgt::{EeRecord, Field, PieceCode};
    use boardcast_protocols::reading::{Square, SquareChange};

    fn dump(address: u16) -> Vec<u8> {
        BusMessage {
            address,
            body: BusBody::BoardDump(Box::new([PieceCode::Empty; 64])),
        }
        .to_bytes()
    }

    fn request(bytes: &[u8]) -> BusRequest {
        let mut buf = BytesMut::from(bytes);
        boardcast_protocols::dgt::bus::BusRequestDecoder::new()
            .decode(&mut buf)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn boards_are_polled_in_turn_and_a_silent_one_goes_missing() {
        let mut d = DgtBusDriver::new(BusOptions {
            addresses: vec![1025, 7],
            ..BusOptions::default()
        });
        assert_eq!(d.hello(0), [0x87, 0, 0, 0x07]);
        let mut out = Vec::new();
        assert!(d.poll(1000, &mut out).is_empty(), "waits for ping answers");
        // A third board answers the ping.
        d.feed(
            500,
            &BusMessage {
                address: 300,
                body: BusBody::Ping,
            }
            .to_bytes(),
            &mut out,
        );
        assert_eq!(out[0], DriverEvent::UnitFound { unit: 300 });
        assert!(
            matches!(&out[1], DriverEvent::Reading { unit: 300, reading: Reading::Identity(i) } if i.serial.as_deref() == Some("00300"))
        );
        assert_eq!(d.units(), [7, 300, 1025]);
        out.clear();
        // Round 1: each board is asked for its board.
        let r = request(&d.poll(1100, &mut out));
        assert_eq!((r.command, r.address), (BusCommand::SendBoard, 7));
        d.feed(1110, &dump(7), &mut out);
        let r = request(&d.poll(1200, &mut out));
        assert_eq!((r.command, r.address), (BusCommand::SendBoard, 300));
        d.feed(1210, &dump(300), &mut out);
        let r = request(&d.poll(1300, &mut out));
        assert_eq!((r.command, r.address), (BusCommand::SendBoard, 1025));
        d.feed(1310, &dump(1025), &mut out);
        assert_eq!(
            out.iter()
                .filter(|e| matches!(e, DriverEvent::UnitFound { .. }))
                .count(),
            2
        );
        out.clear();
        // Round 2: board 7 reports a move; board 300 is silent from now on.
        let r = request(&d.poll(1400, &mut out));
        assert_eq!((r.command, r.address), (BusCommand::SendChanges, 7));
        let changes = BusMessage {
            address: 7,
            body: BusBody::Changes(vec![EeRecord::PieceChange {
                field: Field::new(36).unwrap(),
                piece: PieceCode::WhitePawn,
                rapid: false,
            }]),
        };
        d.feed(1405, &changes.to_bytes(), &mut out);
        assert_eq!(
            out,
            [DriverEvent::Reading {
                unit: 7,
                reading: Reading::Square(SquareChange {
                    square: Square::new(4, 3),
                    content: PieceCode::WhitePawn.content()
                })
            }]
        );
        out.clear();
        let mut t = 1500;
        let mut missing_at = None;
        while t < 4000 && missing_at.is_none() {
            let sent = d.poll(t, &mut out);
            if !sent.is_empty() {
                let r = request(&sent);
                if r.address != 300 {
                    // The others answer "no changes".
                    let none = BusMessage {
                        address: r.address,
                        body: BusBody::Changes(vec![]),
                    };
                    d.feed(t + 5, &none.to_bytes(), &mut out);
                }
            }
            if out.contains(&DriverEvent::UnitMissing { unit: 300 }) {
                missing_at = Some(t);
            }
            t += 10;
        }
        // Not before it has been silent a whole `missing_after_ms` (it last
        // answered at 1210), and at its first unanswered turn after that
        // (every 300 ms, 80 ms to answer).
        assert!(
            missing_at.is_some_and(|t| (1210 + 1000..=1210 + 1000 + 380).contains(&t)),
            "{missing_at:?} {out:?}"
        );
        assert_eq!(
            out.iter()
                .filter(|e| matches!(e, DriverEvent::UnitMissing { .. }))
                .count(),
            1
        );
        // While missing, it is pinged.
        let mut pinged = false;
        for step in 0..10 {
            let sent = d.poll(t + 100 * step, &mut Vec::new());
            if !sent.is_empty() && request(&sent).address == 300 {
                pinged = request(&sent).command == BusCommand::Ping;
                break;
            }
        }
        assert!(pinged);
        t += 1000;
        // It comes back: found again, and asked for its whole board.
        out.clear();
        d.feed(
            t,
            &BusMessage {
                address: 300,
                body: BusBody::Ping,
            }
            .to_bytes(),
            &mut out,
        );
        assert_eq!(out[0], DriverEvent::UnitFound { unit: 300 });
        let mut asked = None;
        for step in 0..10 {
            let sent = d.poll(t + 100 * step, &mut out);
            if !sent.is_empty() && request(&sent).address == 300 {
                asked = Some(request(&sent).command);
                break;
            }
        }
        assert_eq!(asked, Some(BusCommand::SendBoard));
    }

    #[test]
    fn a_board_memory_is_read_on_request() {
        let mut d = DgtBusDriver::new(BusOptions {
            addresses: vec![7],
            ..BusOptions::default()
        });
        d.hello(0);
        d.request(7, BusCommand::SendFromStart);
        let mut out = Vec::new();
        let r = request(&d.poll(1100, &mut out));
        assert_eq!((r.command, r.address), (BusCommand::SendFromStart, 7));
        let records = vec![
            EeRecord::PieceChange {
                field: Field::new(52).unwrap(),
                piece: PieceCode::Empty,
                rapid: false,
            },
            EeRecord::PieceChange {
                field: Field::new(36).unwrap(),
                piece: PieceCode::WhitePawn,
                rapid: false,
            },
        ];
        let reply = BusMessage {
            address: 7,
            body: BusBody::FromStart(records.clone()),
        };
        d.feed(1105, &reply.to_bytes(), &mut out);
        assert_eq!(
            out,
            [
                DriverEvent::UnitFound { unit: 7 },
                DriverEvent::Memory {
                    unit: 7,
                    records: boardcast_protocols::dgt::memory(&records)
                }
            ]
        );
        // Back to the usual poll: the board is not known yet.
        let r = request(&d.poll(1200, &mut out));
        assert_eq!(r.command, BusCommand::SendBoard);
    }

    #[test]
    fn a_lost_change_list_is_asked_for_again() {
        let mut d = DgtBusDriver::new(BusOptions {
            addresses: vec![7],
            ..BusOptions::default()
        });
        d.hello(0);
        let mut out = Vec::new();
        d.poll(1100, &mut out);
        d.feed(1101, &dump(7), &mut out);
        let r = request(&d.poll(1200, &mut out));
        assert_eq!(r.command, BusCommand::SendChanges);
        let mut bad = BusMessage {
            address: 7,
            body: BusBody::Changes(vec![EeRecord::BeginPos]),
        }
        .to_bytes();
        let last = bad.len() - 1;
        bad[last] = (bad[last] + 1) & 0x7f;
        out.clear();
        d.feed(1201, &bad, &mut out);
        assert!(matches!(out[..], [DriverEvent::Dropped { .. }]));
        let r = request(&d.poll(1300, &mut out));
        assert_eq!(r.command, BusCommand::RepeatChanges);
    }
}
