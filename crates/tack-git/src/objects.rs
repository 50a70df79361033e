//! Reading commit objects from a repository's object database without running
//! `git`: loose objects (`objects/ab/cdef…`, zlib) and packs (`objects/pack/
//! *.idx` version 2 and their `.pack`, deltas included), SHA-1 repositories
//! only. Used for the recent commits of the git snapshot, where a `git log`
//! process cost ~2 ms on the way to the first request.
//!
//! Every answer is [`Fact::Known`] only where it is what git would read;
//! anything this reader does not handle (alternates, a SHA-256 repository, an
//! object it cannot find or parse) is [`Fact::Unsure`], and the caller runs
//! `git` instead. Reads are bounded: an index is searched with positioned
//! reads (never read whole), and an object is inflated only up to the size
//! its header declares.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::files::Fact;

/// A SHA-1 object id.
pub(crate) type ObjectId = [u8; 20];

/// The largest object this reader inflates (a commit is a few KiB; a larger
/// "commit" is a damaged or hostile repository: ask git).
const MAX_OBJECT_BYTES: u64 = 1 << 20;
/// Deepest delta chain followed (git's own default `--depth` is 50).
const MAX_DELTA_DEPTH: usize = 64;

/// The object database of one repository.
#[derive(Debug)]
pub(crate) struct ObjectStore {
    objects: PathBuf,
    packs: Vec<Pack>,
}

/// One pack: its index (searched in place) and its data file.
#[derive(Debug)]
struct Pack {
    idx: File,
    data_path: PathBuf,
    /// Objects in the pack (the fan-out table's last entry).
    count: u32,
}

/// An object's type as the pack and loose headers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Commit,
    Other,
}

impl ObjectStore {
    /// The store under `common_dir/objects`; `Unsure` where objects may live
    /// elsewhere (alternates) or an index is not one this reader knows.
    pub(crate) fn open(common_dir: &Path) -> Fact<ObjectStore> {
        let objects = common_dir.join("objects");
        if objects.join("info/alternates").exists() {
            return Fact::Unsure;
        }
        let mut packs = Vec::new();
        let entries = match std::fs::read_dir(objects.join("pack")) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Fact::Known(ObjectStore { objects, packs });
            }
            Err(_) => return Fact::Unsure,
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "idx") {
                continue;
            }
            let data_path = path.with_extension("pack");
            // An index without its pack is being written or removed.
            if !data_path.is_file() {
                continue;
            }
            match open_index(&path) {
                Some((idx, count)) => packs.push(Pack {
                    idx,
                    data_path,
                    count,
                }),
                None => return Fact::Unsure,
            }
        }
        Fact::Known(ObjectStore { objects, packs })
    }

    /// The objects in packs: what git's automatic abbreviation length is
    /// computed from.
    pub(crate) fn packed_count(&self) -> u64 {
        self.packs.iter().map(|p| u64::from(p.count)).sum()
    }

    /// An object's kind and content.
    pub(crate) fn read(&self, id: &ObjectId) -> Fact<(Kind, Vec<u8>)> {
        match self.read_loose(id) {
            Fact::Known(Some(object)) => return Fact::Known(object),
            Fact::Known(None) => {}
            Fact::Unsure => return Fact::Unsure,
        }
        for pack in &self.packs {
            if let Some(offset) = pack.offset_of(id) {
                return match read_packed(self, pack, offset, 0) {
                    Some((code, bytes)) => Fact::Known((kind_of(code), bytes)),
                    None => Fact::Unsure,
                };
            }
        }
        Fact::Unsure
    }

    /// Hex digits needed to name `id` unambiguously among the objects here,
    /// at least `min`.
    pub(crate) fn unique_hex_len(&self, id: &ObjectId, min: usize) -> usize {
        let mut shared = 0;
        for pack in &self.packs {
            shared = shared.max(pack.longest_shared_prefix(id));
        }
        let dir = self.objects.join(format!("{:02x}", id[0]));
        let hex = to_hex(id);
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let other = format!("{:02x}{}", id[0], name.to_string_lossy());
                if other.len() == 40 && other != hex {
                    shared = shared.max(common_hex_prefix(&hex, &other));
                }
            }
        }
        min.max(shared + 1).min(40)
    }

    /// A loose object, `Known(None)` if there is none.
    fn read_loose(&self, id: &ObjectId) -> Fact<Option<(Kind, Vec<u8>)>> {
        let hex = to_hex(id);
        let path = self.objects.join(&hex[..2]).join(&hex[2..]);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Fact::Known(None),
            Err(_) => return Fact::Unsure,
        };
        let mut raw = Vec::new();
        let limit = MAX_OBJECT_BYTES + 64;
        let inflated = flate2::read::ZlibDecoder::new(file)
            .take(limit)
            .read_to_end(&mut raw);
        if inflated.is_err() {
            return Fact::Unsure;
        }
        let Some(nul) = raw.iter().position(|&b| b == 0) else {
            return Fact::Unsure;
        };
        let header = String::from_utf8_lossy(&raw[..nul]).into_owned();
        let Some((kind, size)) = header.split_once(' ') else {
            return Fact::Unsure;
        };
        let body = raw.split_off(nul + 1);
        if size.parse::<usize>().ok() != Some(body.len()) {
            return Fact::Unsure;
        }
        let kind = if kind == "commit" {
            Kind::Commit
        } else {
            Kind::Other
        };
        Fact::Known(Some((kind, body)))
    }
}

/// Opens a version 2 index and reads its object count.
fn open_index(path: &Path) -> Option<(File, u32)> {
    let idx = File::open(path).ok()?;
    let mut head = [0u8; 8];
    idx.read_exact_at(&mut head, 0).ok()?;
    if head != [0xff, b't', b'O', b'c', 0, 0, 0, 2] {
        return None;
    }
    let count = read_u32(&idx, 8 + 255 * 4)?;
    Some((idx, count))
}

impl Pack {
    /// Where `id` is in the pack data, if this pack has it.
    fn offset_of(&self, id: &ObjectId) -> Option<u64> {
        let pos = self.position(id).ok()?;
        let names_end = 8 + 256 * 4 + 24 * u64::from(self.count);
        let small = read_u32(&self.idx, names_end + 4 * u64::from(pos))?;
        if small & 0x8000_0000 == 0 {
            return Some(u64::from(small));
        }
        let large_table = names_end + 4 * u64::from(self.count);
        let at = large_table + 8 * u64::from(small & 0x7fff_ffff);
        let mut big = [0u8; 8];
        self.idx.read_exact_at(&mut big, at).ok()?;
        Some(u64::from_be_bytes(big))
    }

    /// `Ok(i)`: `id` is the `i`th name; `Err(i)`: it would be inserted at `i`.
    fn position(&self, id: &ObjectId) -> Result<u32, u32> {
        let first = id[0] as u64;
        let lo = if first == 0 {
            0
        } else {
            read_u32(&self.idx, 8 + (first - 1) * 4).ok_or(0u32)?
        };
        let hi = read_u32(&self.idx, 8 + first * 4).ok_or(0u32)?;
        let (mut lo, mut hi) = (lo, hi.min(self.count));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let name = self.name(mid).ok_or(mid)?;
            match name.cmp(id) {
                std::cmp::Ordering::Equal => return Ok(mid),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        Err(lo)
    }

    fn name(&self, i: u32) -> Option<ObjectId> {
        let mut name = [0u8; 20];
        let at = 8 + 256 * 4 + 20 * u64::from(i);
        self.idx.read_exact_at(&mut name, at).ok()?;
        Some(name)
    }

    /// The most hex digits `id` shares with another object in this pack.
    fn longest_shared_prefix(&self, id: &ObjectId) -> usize {
        let hex = to_hex(id);
        let at = match self.position(id) {
            Ok(i) | Err(i) => i,
        };
        let mut neighbours = Vec::new();
        if at > 0 {
            neighbours.push(at - 1);
        }
        neighbours.extend([at, at + 1].into_iter().filter(|&i| i < self.count));
        neighbours
            .into_iter()
            .filter_map(|i| self.name(i))
            .filter(|name| name != id)
            .map(|name| common_hex_prefix(&hex, &to_hex(&name)))
            .max()
            .unwrap_or(0)
    }
}

/// The object at `offset` in `pack`: its type code (1 commit … 4 tag) and
/// content, deltas applied.
fn read_packed(
    store: &ObjectStore,
    pack: &Pack,
    offset: u64,
    depth: usize,
) -> Option<(u8, Vec<u8>)> {
    if depth > MAX_DELTA_DEPTH {
        return None;
    }
    let file = File::open(&pack.data_path).ok()?;
    let mut head = [0u8; 32];
    let got = file.read_at(&mut head, offset).ok()?;
    let head = &head[..got];
    let (code, size, mut used) = entry_header(head)?;
    let base = match code {
        1..=4 => None,
        6 => {
            let (back, n) = ofs_delta_distance(&head[used..])?;
            used += n;
            let base_offset = offset.checked_sub(back)?;
            Some(read_packed(store, pack, base_offset, depth + 1)?)
        }
        7 => {
            let id: ObjectId = head.get(used..used + 20)?.try_into().ok()?;
            used += 20;
            Some(match store.read(&id) {
                Fact::Known((Kind::Commit, bytes)) => (1, bytes),
                // Only commits are read through deltas here.
                Fact::Known((Kind::Other, _)) | Fact::Unsure => return None,
            })
        }
        _ => return None,
    };
    if size > MAX_OBJECT_BYTES {
        return None;
    }
    let data = inflate_at(&file, offset + used as u64, size)?;
    match base {
        None => Some((code, data)),
        Some((base_code, base_bytes)) => Some((base_code, apply_delta(&base_bytes, &data)?)),
    }
}

/// The zlib stream at `offset`, which must inflate to exactly `size` bytes.
fn inflate_at(file: &File, offset: u64, size: u64) -> Option<Vec<u8>> {
    let reader = std::io::BufReader::new(PositionedReader { file, offset });
    let mut out = Vec::with_capacity(usize::try_from(size).ok()?);
    flate2::bufread::ZlibDecoder::new(reader)
        .take(size + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() as u64 == size).then_some(out)
}

/// `Read` over a file from an offset, without moving a shared cursor.
struct PositionedReader<'a> {
    file: &'a File,
    offset: u64,
}

impl Read for PositionedReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// A pack entry's type code, inflated size and header length.
fn entry_header(bytes: &[u8]) -> Option<(u8, u64, usize)> {
    let first = *bytes.first()?;
    let code = (first >> 4) & 0x7;
    let mut size = u64::from(first & 0x0f);
    let mut shift = 4;
    let mut used = 1;
    let mut byte = first;
    while byte & 0x80 != 0 {
        byte = *bytes.get(used)?;
        used += 1;
        if shift > 57 {
            return None;
        }
        size |= u64::from(byte & 0x7f) << shift;
        shift += 7;
    }
    Some((code, size, used))
}

/// An `OFS_DELTA`'s distance back to its base, and the bytes it took.
fn ofs_delta_distance(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut byte = *bytes.first()?;
    let mut distance = u64::from(byte & 0x7f);
    let mut used = 1;
    while byte & 0x80 != 0 {
        byte = *bytes.get(used)?;
        used += 1;
        distance = distance.checked_add(1)?.checked_mul(128)? | u64::from(byte & 0x7f);
    }
    Some((distance, used))
}

/// `base` with a git delta applied; `None` for a delta that does not fit it.
pub(crate) fn apply_delta(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let (base_len, mut at) = delta_varint(delta, 0)?;
    let (out_len, next) = delta_varint(delta, at)?;
    at = next;
    if base_len != base.len() as u64 || out_len > MAX_OBJECT_BYTES {
        return None;
    }
    let mut out = Vec::with_capacity(usize::try_from(out_len).ok()?);
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            let mut fields = [0u64; 7];
            for (bit, field) in fields.iter_mut().enumerate() {
                if op & (1 << bit) != 0 {
                    *field = u64::from(*delta.get(at)?);
                    at += 1;
                }
            }
            let offset = fields[0] | fields[1] << 8 | fields[2] << 16 | fields[3] << 24;
            let mut len = fields[4] | fields[5] << 8 | fields[6] << 16;
            if len == 0 {
                len = 0x10000;
            }
            let start = usize::try_from(offset).ok()?;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            out.extend_from_slice(base.get(start..end)?);
        } else if op != 0 {
            out.extend_from_slice(delta.get(at..at + usize::from(op))?);
            at += usize::from(op);
        } else {
            return None;
        }
    }
    (out.len() as u64 == out_len).then_some(out)
}

/// A delta header's little-endian base-128 number from `at`, and where it ends.
fn delta_varint(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(at)?;
        at += 1;
        if shift > 57 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some((value, at));
        }
    }
}

fn kind_of(code: u8) -> Kind {
    if code == 1 { Kind::Commit } else { Kind::Other }
}

fn read_u32(file: &File, at: u64) -> Option<u32> {
    let mut bytes = [0u8; 4];
    file.read_exact_at(&mut bytes, at).ok()?;
    Some(u32::from_be_bytes(bytes))
}

/// `id` as 40 lowercase hex digits.
pub(crate) fn to_hex(id: &ObjectId) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

/// An id from 40 hex digits.
pub(crate) fn from_hex(hex: &str) -> Option<ObjectId> {
    if hex.len() != 40 {
        return None;
    }
    let mut id = [0u8; 20];
    for (i, byte) in id.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(id)
}

fn common_hex_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_delta_copies_from_the_base_and_inserts_literals() {
        let base = b"tree 1\nparent 2\n\nhello world\n";
        // base len 29, result len 20; copy 6 bytes from 0, insert "!!", copy
        // 12 bytes from 17.
        let mut delta = vec![29, 20];
        delta.extend([0x80 | 0x10, 6]);
        delta.extend([2, b'!', b'!']);
        delta.extend([0x80 | 0x01 | 0x10, 17, 12]);
        assert_eq!(
            apply_delta(base, &delta).as_deref(),
            Some(&b"tree 1!!hello world\n"[..])
        );
        // The declared base length must match.
        assert_eq!(apply_delta(b"short", &delta), None);
        // A copy past the base's end is refused, not a panic.
        let mut past = vec![29, 100];
        past.extend([0x80 | 0x01 | 0x10, 20, 50]);
        assert_eq!(apply_delta(base, &past), None);
    }

    #[test]
    fn pack_headers_and_offset_distances_decode() {
        // commit (1), size 0x15 + (0x02 << 4) = 53.
        assert_eq!(entry_header(&[0x80 | 0x10 | 0x05, 0x03]), Some((1, 53, 2)));
        assert_eq!(entry_header(&[0x80 | 0x10]), None);
        assert_eq!(ofs_delta_distance(&[0x05]), Some((5, 1)));
        // Two bytes: ((0x01 + 1) << 7) | 0x02 = 258.
        assert_eq!(ofs_delta_distance(&[0x81, 0x02]), Some((258, 2)));
    }

    #[test]
    fn hex_round_trips_and_rejects_bad_input() {
        let hex = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(from_hex(hex).map(|id| to_hex(&id)).as_deref(), Some(hex));
        assert_eq!(from_hex("0123"), None);
        assert_eq!(from_hex(&"zz".repeat(20)), None);
    }
}
