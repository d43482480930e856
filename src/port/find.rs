//! Finding a board's device: candidate paths, and who holds what.
//!
//! A board's `port` is a path, a glob pattern or a list of them. Patterns
//! (such as `/dev/serial/by-id/usb-DGT*`, or any folder of symlinks) let a
//! board come back on another path after a replug. When several boards
//! may match the same device, the [`Claims`] registry keeps one task per
//! device, and serial numbers tell the boards apart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::setup::config::{PortSpec, is_pattern};

/// The paths a spec names right now, in spec order, without duplicates.
/// Fixed paths are listed whether or not they exist (opening tells);
/// patterns list what exists (devices, or in-process lines
/// ([`super::memory`]) plugged in now).
pub fn candidates(spec: &PortSpec) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for c in &spec.candidates {
        if is_pattern(c) {
            // In-process lines are found by name, not on the disk.
            let mut found: Vec<PathBuf> = if super::memory::is_memory(c) {
                super::memory::matching(c)
                    .into_iter()
                    .map(PathBuf::from)
                    .collect()
            } else {
                let Ok(paths) = glob::glob(c) else { continue };
                paths.filter_map(Result::ok).collect()
            };
            found.sort();
            for p in found {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        } else {
            let p = PathBuf::from(c);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The device a path leads to (symlinks resolved), for telling whether two
/// paths are the same port.
pub fn device_of(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// Which board task holds which device and which serial number, shared by
/// all board tasks.
#[derive(Debug, Default)]
pub struct Claims {
    devices: Mutex<HashMap<PathBuf, String>>,
    serials: Mutex<HashMap<String, String>>,
}

impl Claims {
    /// An empty registry.
    pub fn new() -> Arc<Claims> {
        Arc::new(Claims::default())
    }

    /// Claims `device` for `board`; `None` if another board holds it. The
    /// claim ends when the guard is dropped.
    pub fn claim_device(self: &Arc<Self>, device: &Path, board: &str) -> Option<DeviceClaim> {
        let mut map = self.devices.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(device) {
            Some(holder) if holder != board => None,
            _ => {
                map.insert(device.to_owned(), board.to_string());
                Some(DeviceClaim {
                    claims: Arc::clone(self),
                    device: device.to_owned(),
                })
            }
        }
    }

    /// Records that `serial` belongs to `board`. The error names the
    /// other board that already has it (the claim is not changed then).
    pub fn claim_serial(&self, serial: &str, board: &str) -> Result<(), SerialTaken> {
        let mut map = self.serials.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(serial) {
            Some(holder) if holder != board => Err(SerialTaken {
                holder: holder.clone(),
            }),
            _ => {
                map.insert(serial.to_string(), board.to_string());
                Ok(())
            }
        }
    }
}

/// A serial number another board has claimed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the serial number is also board `{holder}`'s")]
pub struct SerialTaken {
    /// The board that has it.
    pub holder: String,
}

/// A held device; released on drop.
#[derive(Debug)]
pub struct DeviceClaim {
    claims: Arc<Claims>,
    device: PathBuf,
}

impl Drop for DeviceClaim {
    fn drop(&mut self) {
        let mut map = self
            .claims
            .devices
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        map.remove(&self.device);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_list_existing_paths_in_order_and_fixed_paths_stay() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["board-b", "board-a", "other"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let spec = PortSpec {
            candidates: vec![
                dir.path().join("board-*").to_string_lossy().into_owned(),
                "/dev/does-not-exist".into(),
                dir.path().join("board-a").to_string_lossy().into_owned(),
            ],
        };
        let names: Vec<String> = candidates(&spec)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["board-a", "board-b", "does-not-exist"]);
    }

    #[test]
    fn a_device_is_held_by_one_board_until_released() {
        let claims = Claims::new();
        let a = claims.claim_device(Path::new("/dev/x"), "1").unwrap();
        assert!(claims.claim_device(Path::new("/dev/x"), "2").is_none());
        drop(a);
        assert!(claims.claim_device(Path::new("/dev/x"), "2").is_some());
    }

    #[test]
    fn a_serial_number_belongs_to_one_board() {
        let claims = Claims::new();
        assert!(claims.claim_serial("12345", "1").is_ok());
        assert!(claims.claim_serial("12345", "1").is_ok());
        assert_eq!(
            claims.claim_serial("12345", "2"),
            Err(SerialTaken {
                holder: "1".to_string()
            })
        );
    }
}
