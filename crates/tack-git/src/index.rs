//! Git's index file (`.git/index`, versions 2-4) read in-process for the
//! snapshot's `status`: each entry's path, mode, object id and the stat data
//! git compares the working tree against, and the cached tree of the whole
//! index when git recorded one.
//!
//! [`Fact::Unsure`] (run `git status`) for anything whose meaning this reader
//! does not carry through: a split or sparse index, conflicted entries,
//! entries marked assume-unchanged, skip-worktree or intent-to-add, and an
//! extension git itself requires understanding of.

use crate::files::Fact;
use crate::objects::ObjectId;

/// The stat data git keeps per entry (each field as git truncates it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatData {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub ino: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
}

/// One stage-0 entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry {
    /// The path from the work tree's root, `/`-separated.
    pub path: Vec<u8>,
    /// `0o100644`, `0o100755`, `0o120000` (symlink) or `0o160000` (gitlink).
    pub mode: u32,
    pub id: ObjectId,
    pub stat: StatData,
}

/// The parts of the index `status` needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Index {
    /// Sorted by path, as git writes them.
    pub entries: Vec<IndexEntry>,
    /// The tree the whole index would write, when the cache-tree extension
    /// has it valid: equal to HEAD's tree means nothing is staged.
    pub root_tree: Option<ObjectId>,
}

/// Fixed part of an entry before the flags: ten 32-bit fields and the id.
const ENTRY_FIXED: usize = 40 + 20;
/// `flags`: assume-valid, extended, stage.
const ASSUME_VALID: u16 = 0x8000;
const EXTENDED: u16 = 0x4000;
const STAGE_MASK: u16 = 0x3000;
const NAME_MASK: u16 = 0x0fff;

/// Parses a whole index file.
pub(crate) fn parse(bytes: &[u8]) -> Fact<Index> {
    parse_index(bytes).map_or(Fact::Unsure, Fact::Known)
}

fn parse_index(bytes: &[u8]) -> Option<Index> {
    // Header, and the trailing checksum that ends the extensions.
    let body_end = bytes.len().checked_sub(20)?;
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(bytes, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(bytes, 8)? as usize;
    let mut at = 12;
    let mut entries = Vec::with_capacity(count.min(1 << 16));
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let (entry, next) = parse_entry(bytes, at, version, &previous)?;
        previous.clone_from(&entry.path);
        entries.push(entry);
        at = next;
    }
    let root_tree = parse_extensions(bytes.get(at..body_end)?)?;
    Some(Index { entries, root_tree })
}

/// One entry at `at`; the entry and where the next one starts.
fn parse_entry(
    bytes: &[u8],
    at: usize,
    version: u32,
    previous: &[u8],
) -> Option<(IndexEntry, usize)> {
    let field = |i: usize| be32(bytes, at + 4 * i);
    let stat = StatData {
        ctime: (field(0)?, field(1)?),
        mtime: (field(2)?, field(3)?),
        ino: field(5)?,
        uid: field(7)?,
        gid: field(8)?,
        size: field(9)?,
    };
    let mode = field(6)?;
    let id: ObjectId = bytes.get(at + 40..at + ENTRY_FIXED)?.try_into().ok()?;
    let flags = be16(bytes, at + ENTRY_FIXED)?;
    if flags & (ASSUME_VALID | STAGE_MASK) != 0 {
        return None;
    }
    let mut name_at = at + ENTRY_FIXED + 2;
    if flags & EXTENDED != 0 {
        // Version 3+: skip-worktree or intent-to-add; either changes what
        // status reports for the entry.
        if version < 3 || be16(bytes, name_at)? != 0 {
            return None;
        }
        name_at += 2;
    }
    let (path, next) = if version == 4 {
        let (strip, after) = prefix_varint(bytes, name_at)?;
        let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
        let len = bytes.get(after..)?.iter().position(|b| *b == 0)?;
        let mut path = previous[..keep].to_vec();
        path.extend_from_slice(&bytes[after..after + len]);
        (path, after + len + 1)
    } else {
        let len = usize::from(flags & NAME_MASK);
        let len = if len == usize::from(NAME_MASK) {
            bytes.get(name_at..)?.iter().position(|b| *b == 0)?
        } else {
            len
        };
        let path = bytes.get(name_at..name_at + len)?.to_vec();
        // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
        let entry_len = (name_at - at + len + 8) & !7;
        (path, at + entry_len)
    };
    let entry = IndexEntry {
        path,
        mode,
        id,
        stat,
    };
    Some((entry, next))
}

/// The extensions: the cached root tree if valid; `None` (unreadable) for a
/// split index (`link`), a sparse index (`sdir`) or any other extension git
/// requires a reader to understand (a lowercase first letter).
fn parse_extensions(mut bytes: &[u8]) -> Option<Option<ObjectId>> {
    let mut root_tree = None;
    while !bytes.is_empty() {
        let signature = bytes.get(..4)?;
        let size = usize::try_from(be32(bytes, 4)?).ok()?;
        let data = bytes.get(8..8 + size)?;
        match signature {
            b"TREE" => root_tree = cached_root_tree(data),
            [first, ..] if first.is_ascii_uppercase() => {}
            _ => return None,
        }
        bytes = &bytes[8 + size..];
    }
    Some(root_tree)
}

/// The cache-tree extension's first record (the root: an empty path), its id
/// when its entry count is not -1 (invalidated).
fn cached_root_tree(data: &[u8]) -> Option<ObjectId> {
    let (path, rest) = data.split_at(data.iter().position(|b| *b == 0)?);
    if !path.is_empty() {
        return None;
    }
    let rest = &rest[1..];
    let space = rest.iter().position(|b| *b == b' ')?;
    let newline = rest.iter().position(|b| *b == b'\n')?;
    let count = std::str::from_utf8(&rest[..space]).ok()?;
    if count.starts_with('-') {
        return None;
    }
    rest.get(newline + 1..newline + 21)?.try_into().ok()
}

/// Git's "offset" varint (index v4 prefix lengths, pack offsets).
fn prefix_varint(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut byte = *bytes.get(at)?;
    at += 1;
    let mut value = u64::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = *bytes.get(at)?;
        at += 1;
        value = value.checked_add(1)?.checked_mul(128)? | u64::from(byte & 0x7f);
    }
    Some((value, at))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn prefix_varints_decode_as_git_writes_them() {
        assert_eq!(prefix_varint(&[0x05], 0), Some((5, 1)));
        // 0x80 0x00 is 128 in git's encoding (each continuation adds one).
        assert_eq!(prefix_varint(&[0x80, 0x00], 0), Some((128, 2)));
        assert_eq!(prefix_varint(&[0x80], 0), None);
    }

    #[test]
    fn truncated_or_foreign_files_are_unsure() {
        assert_eq!(parse(b""), Fact::Unsure);
        assert_eq!(parse(&[0; 40]), Fact::Unsure);
        let mut v5 = b"DIRC\0\0\0\x05\0\0\0\0".to_vec();
        v5.extend([0; 20]);
        assert_eq!(parse(&v5), Fact::Unsure);
        let mut empty = b"DIRC\0\0\0\x02\0\0\0\0".to_vec();
        empty.extend([0; 20]);
        let expected = Index {
            entries: Vec::new(),
            root_tree: None,
        };
        assert_eq!(parse(&empty), Fact::Known(expected));
    }
}
