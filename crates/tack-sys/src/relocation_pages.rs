//! Handing back the pages of the binary's relocation table once start-up
//! has used them.
//!
//! A position-independent executable carries a table of the addresses the
//! dynamic loader must fix up at load time (`.rela.dyn`: for tack ~36,000
//! entries, ~850 KiB). The loader reads it whole before `main` and never
//! again, yet its pages stay mapped and count in the process's resident size
//! for the whole session: about a twelfth of a one-turn session's peak.
//! `MADV_DONTNEED` unmaps them. They belong to a read-only private file
//! mapping that nothing ever wrote, so a later read (none is expected) would
//! fault the same bytes back in from the file: nothing can change.

use std::ffi::c_int;

/// `DT_RELA`, `DT_RELASZ`: the table's address and size in the dynamic
/// section.
const DT_RELA: i64 = 7;
const DT_RELASZ: i64 = 8;

/// One entry of the dynamic section (`Elf64_Dyn`).
#[repr(C)]
struct DynamicEntry {
    tag: i64,
    value: u64,
}

/// Unmaps the whole pages of the executable's `.rela.dyn`; the bytes handed
/// back (0 when there is nothing to do: a static or non-PIE binary, or a
/// table that is not inside a read-only segment).
pub fn release_relocation_table() -> usize {
    let Some((first, last)) = relocation_table_pages() else {
        return 0;
    };
    // SAFETY: [first, last) is whole pages of a read-only private file
    // mapping of the executable (checked in `first_object`): dropping them
    // cannot lose data, and a later read refaults the file's bytes.
    let rc = unsafe {
        libc::madvise(
            first as *mut libc::c_void,
            last - first,
            libc::MADV_DONTNEED,
        )
    };
    if rc == 0 { last - first } else { 0 }
}

/// The whole pages of the executable's relocation table, if it has one
/// inside a read-only segment.
fn relocation_table_pages() -> Option<(usize, usize)> {
    let mut found: Option<(usize, usize)> = None;
    // SAFETY: the callback only reads the program headers and the dynamic
    // section the loader passes for the main program, which stay mapped for
    // the life of the process; it stops after the first object (the
    // executable itself).
    unsafe {
        libc::dl_iterate_phdr(
            Some(first_object),
            (&mut found as *mut Option<(usize, usize)>).cast(),
        );
    }
    let (start, end) = found?;
    let page = page_size();
    let first = start.div_ceil(page) * page;
    let last = end / page * page;
    (first < last).then_some((first, last))
}

/// The `dl_iterate_phdr` callback: for the first object (the executable),
/// the address range of its relocation table if it lies inside a segment
/// that is loaded read-only.
unsafe extern "C" fn first_object(
    info: *mut libc::dl_phdr_info,
    _size: libc::size_t,
    data: *mut libc::c_void,
) -> c_int {
    // SAFETY: the loader passes a valid `dl_phdr_info` and our `data`.
    let (info, found) = unsafe { (&*info, &mut *data.cast::<Option<(usize, usize)>>()) };
    let base = info.dlpi_addr as usize;
    // SAFETY: `dlpi_phdr` points at `dlpi_phnum` program headers.
    let headers =
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
    let dynamic = headers.iter().find(|h| h.p_type == libc::PT_DYNAMIC);
    let Some(dynamic) = dynamic else {
        return 1;
    };
    let mut entry = (base + dynamic.p_vaddr as usize) as *const DynamicEntry;
    let (mut rela, mut size) = (0usize, 0usize);
    // SAFETY: the dynamic section is an array of entries ending in DT_NULL.
    unsafe {
        while (*entry).tag != 0 {
            match (*entry).tag {
                DT_RELA => rela = (*entry).value as usize,
                DT_RELASZ => size = (*entry).value as usize,
                _ => {}
            }
            entry = entry.add(1);
        }
    }
    if rela == 0 || size == 0 {
        return 1;
    }
    // The loader may have relocated the entry in place (an absolute
    // address) or not (an offset from the base).
    if rela < base {
        rela += base;
    }
    let end = rela + size;
    let read_only = headers.iter().any(|h| {
        let from = base + h.p_vaddr as usize;
        let to = from + h.p_memsz as usize;
        h.p_type == libc::PT_LOAD && h.p_flags == libc::PF_R && from <= rela && end <= to
    });
    if read_only {
        *found = Some((rela, end));
    }
    1
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom};

    /// Whether each page of [first, last) is mapped in this process
    /// (`/proc/self/pagemap`'s present bit, visible without privileges).
    fn present(first: usize, last: usize) -> Vec<bool> {
        let page = page_size();
        let mut pagemap = std::fs::File::open("/proc/self/pagemap").unwrap();
        pagemap
            .seek(SeekFrom::Start((first / page * 8) as u64))
            .unwrap();
        let mut bytes = vec![0u8; (last - first) / page * 8];
        pagemap.read_exact(&mut bytes).unwrap();
        bytes
            .chunks_exact(8)
            .map(|e| u64::from_le_bytes(e.try_into().unwrap()) >> 63 == 1)
            .collect()
    }

    /// The test binary is a PIE with relative relocations too: the loader
    /// read its table whole, and afterwards no page of it is mapped; the
    /// process runs on.
    #[test]
    fn the_tables_pages_are_mapped_after_loading_and_gone_after_release() {
        let (first, last) = relocation_table_pages().expect("a PIE has a relocation table");
        let pages = (last - first) / page_size();
        assert!(pages > 0);
        assert_eq!(present(first, last), vec![true; pages]);
        assert_eq!(release_relocation_table(), last - first);
        assert_eq!(present(first, last), vec![false; pages]);
        assert_eq!(format!("{:?}", vec![1, 2, 3]), "[1, 2, 3]");
    }
}
