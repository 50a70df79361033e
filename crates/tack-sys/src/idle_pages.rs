//! Handing back the executable's pages while a long-lived process waits.
//!
//! An idle background session keeps resident every page of the binary its
//! start and its turns touched (in tack ~14 MiB of file-backed memory
//! against ~2 MiB of its own heap). Those pages are clean copies of the
//! file: `MADV_PAGEOUT` asks the kernel to reclaim them now, and the next
//! turn faults back what it needs from the page cache (microseconds a
//! page). It only ever drops what the kernel can read again: contents never
//! change, and pages another process maps too stay where they are.

use std::path::Path;

/// Pages out the read-only mappings of the running executable; the bytes
/// the hint covered (0 where the kernel lacks `MADV_PAGEOUT`, Linux < 5.4,
/// or /proc is not there).
pub fn page_out_executable() -> usize {
    let Ok(exe) = std::fs::read_link("/proc/self/exe") else {
        return 0;
    };
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return 0;
    };
    read_only_mappings(&maps, &exe)
        .map(|(start, end)| {
            // SAFETY: [start, end) is a whole mapping of this process (from
            // /proc/self/maps), private and not writable; MADV_PAGEOUT is a
            // reclaim hint that keeps every page's contents.
            let rc = unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_PAGEOUT)
            };
            if rc == 0 { end - start } else { 0 }
        })
        .sum()
}

/// The (start, end) of each mapping of `exe` in `maps` that is private and
/// not writable.
fn read_only_mappings<'a>(
    maps: &'a str,
    exe: &'a Path,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    maps.lines().filter_map(move |line| {
        // start-end perms offset dev inode path
        let mut fields = line.split_whitespace();
        let range = fields.next()?;
        let perms = fields.next()?;
        let path = fields.nth(3)?;
        if Path::new(path) != exe || perms.contains('w') || !perms.ends_with('p') {
            return None;
        }
        let (start, end) = range.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        (start < end).then_some((start, end))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_executables_private_read_only_mappings_are_picked() {
        let maps = "\
55d0a0000000-55d0a0100000 r--p 00000000 fd:01 42 /usr/bin/tack
55d0a0100000-55d0a0900000 r-xp 00100000 fd:01 42 /usr/bin/tack
55d0a0900000-55d0a0a00000 rw-p 00900000 fd:01 42 /usr/bin/tack
55d0a0a00000-55d0a0b00000 r--s 00a00000 fd:01 42 /usr/bin/tack
7f0000000000-7f0000100000 r-xp 00000000 fd:01 7 /usr/lib/libc.so.6
7f0000200000-7f0000300000 rw-p 00000000 00:00 0
";
        let picked: Vec<_> = read_only_mappings(maps, Path::new("/usr/bin/tack")).collect();
        assert_eq!(
            picked,
            vec![
                (0x55d0_a000_0000, 0x55d0_a010_0000),
                (0x55d0_a010_0000, 0x55d0_a090_0000)
            ]
        );
    }

    #[test]
    fn paging_out_keeps_the_process_running() {
        // The test binary's own code is paged out and runs on.
        let covered = page_out_executable();
        assert!(covered > 0);
        assert_eq!(std::hint::black_box(2 + 2), 4);
    }
}
