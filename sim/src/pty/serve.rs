//! Each board family's answers to the host on one plug: DGT commands,
//! Millennium and open-protocol requests, a Certabo board's frames.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use boardcast::family::Family;
use boardcast_protocols::dgt::{Command as DgtCommand, CommandDecoder, Message};
use bytes::BytesMut;
use tokio::sync::Notify;

use super::{Line, Shared, lock, read_host, write_all};
use crate::dgt::dump_message;

/// Answers the host's commands on one plug.
pub(super) async fn serve(shared: Arc<Mutex<Shared>>, master: Arc<Line>, started: Arc<Notify>) {
    let mut decoder = CommandDecoder::new();
    let mut buf = BytesMut::new();
    read_host(&master, |chunk| {
        buf.extend_from_slice(chunk);
        loop {
            let cmd = match decoder.decode(&mut buf) {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(_) => continue,
            };
            let mut s = lock(&shared);
            let reply = match cmd {
                DgtCommand::SerialNumber => Some(Message::SerialNumber(s.serial.clone())),
                DgtCommand::Version => Some(Message::Version { major: 2, minor: 7 }),
                DgtCommand::SendBoard => Some(dump_message(&s.cells, s.rotated)),
                DgtCommand::EeMoves => {
                    let mut records = s.memory.clone();
                    records.push(boardcast_protocols::dgt::EeRecord::Eof);
                    Some(Message::EeMoves(records))
                }
                DgtCommand::Reset => {
                    if let Some(p) = &mut s.plugged {
                        p.updates = false;
                    }
                    None
                }
                DgtCommand::SendUpdate
                | DgtCommand::SendUpdateNice
                | DgtCommand::SendUpdateBoard => {
                    if let Some(p) = &mut s.plugged {
                        p.updates = true;
                    }
                    started.notify_one();
                    None
                }
                _ => None,
            };
            if let Some(m) = reply {
                write_all(&master, &m.to_bytes());
            }
        }
    })
    .await;
}

/// Answers the host on one plug of a Millennium or open-protocol board:
/// its identity (`V`, `?`) and its whole board (`S`, `board?`). The first
/// request for the board starts play; from then on every change is
/// written as the family writes it.
pub(super) async fn serve_family(
    shared: Arc<Mutex<Shared>>,
    master: Arc<Line>,
    started: Arc<Notify>,
) {
    use boardcast_protocols::{millennium, open};
    let protocol = lock(&shared).protocol;
    let mut millennium = millennium::CommandDecoder::new();
    let mut open = open::HostDecoder::new();
    let mut buf = BytesMut::new();
    read_host(&master, |chunk| {
        buf.extend_from_slice(chunk);
        loop {
            // What the host asked: who are you, or the whole board.
            let asked = match protocol {
                Family::Millennium => match millennium.decode(&mut buf) {
                    Ok(Some(millennium::Command::Version)) => Some(false),
                    Ok(Some(millennium::Command::Status)) => Some(true),
                    Ok(Some(_)) | Err(_) => continue,
                    Ok(None) => None,
                },
                _ => match open.decode(&mut buf) {
                    Ok(Some(open::HostLine::Hello)) => Some(false),
                    Ok(Some(open::HostLine::Board)) => Some(true),
                    Err(_) => continue,
                    Ok(None) => None,
                },
            };
            let Some(board) = asked else { break };
            let mut s = lock(&shared);
            let reply = if board {
                if let Some(p) = &mut s.plugged {
                    p.updates = true;
                }
                started.notify_one();
                crate::family::board_bytes(protocol, &s.cells, s.rotated)
            } else {
                crate::family::identity_bytes(protocol, &s.serial)
            };
            write_all(&master, &reply);
        }
    })
    .await;
}

/// How often a simulated Certabo board sends its frame when nothing
/// changes (the real board streams about once a second).
const CERTABO_FRAME_MS: u64 = 500;

/// One plug of a Certabo board: it asks nothing and answers nothing (the
/// host's 8 LED bytes are read and dropped). The host's first bytes start
/// it: the calibration frame (the start position with the spare queens on
/// d3 and d6), then the frame without them, then play; the current frame
/// goes out every [`CERTABO_FRAME_MS`] and after every change.
pub(super) async fn serve_certabo(
    shared: Arc<Mutex<Shared>>,
    master: Arc<Line>,
    started: Arc<Notify>,
) {
    let first = Arc::new(Notify::new());
    let frames = {
        let (shared, master, first) = (shared.clone(), master.clone(), first.clone());
        async move {
            first.notified().await;
            {
                let mut s = lock(&shared);
                if let Some(p) = &mut s.plugged {
                    p.updates = true;
                }
                for spares in [true, false] {
                    if let Some(frame) = s.certabo_frame(spares) {
                        write_all(&master, &frame);
                    }
                }
            }
            started.notify_one();
            loop {
                tokio::time::sleep(Duration::from_millis(CERTABO_FRAME_MS)).await;
                let s = lock(&shared);
                if let Some(frame) = s.certabo_frame(false) {
                    write_all(&master, &frame);
                }
            }
        }
    };
    let host = read_host(&master, |_| first.notify_one());
    tokio::join!(frames, host);
}
