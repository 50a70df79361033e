//! One streaming pass over a text file for Read: the numbered lines of the
//! requested range, the total line count, the content hash and the binary
//! check, in memory bounded by what is returned (the output cap, one line's
//! displayable prefix and the read buffer), never by the file's size.

use std::hash::Hasher;
use std::io::{self, BufRead, BufReader, Read};

use crate::file_state::ContentHasher;
use crate::numbered_lines::{self, MAX_LINE_CHARS};

/// A NUL byte in this many leading bytes means the file is binary.
const BINARY_SNIFF_BYTES: u64 = 8192;
/// Bytes of one line kept for display: more than [`MAX_LINE_CHARS`] characters
/// of any UTF-8 text, so a cut line is always marked as cut.
const LINE_KEEP_BYTES: usize = MAX_LINE_CHARS * 4 + 4;

/// What [`scan`] found.
#[derive(Debug)]
pub(crate) struct Scan {
    /// A NUL byte in the first 8 KiB; nothing else is filled in then.
    pub(crate) binary: bool,
    pub(crate) total_bytes: u64,
    pub(crate) total_lines: usize,
    /// [`crate::file_state::content_hash`] of the whole file.
    pub(crate) hash: u64,
    /// `number\ttext\n` for the lines shown.
    pub(crate) out: String,
    pub(crate) shown: usize,
    /// The range had more than `max_output` characters; `out` stops before it.
    pub(crate) over_cap: bool,
    /// Characters the whole requested range would take (each line capped at
    /// [`MAX_LINE_CHARS`], plus 8 for its number), for the token estimate.
    pub(crate) range_chars: usize,
}

/// Reads `reader` to the end. Lines `start..start + limit` (1-based) are
/// numbered into `out` until adding one would pass `max_output` bytes.
pub(crate) fn scan(
    reader: impl Read,
    start: usize,
    limit: usize,
    max_output: usize,
) -> io::Result<Scan> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let end = start.saturating_add(limit);
    let mut scan = Scan {
        binary: false,
        total_bytes: 0,
        total_lines: 0,
        hash: 0,
        out: String::new(),
        shown: 0,
        over_cap: false,
        range_chars: 0,
    };
    let mut hasher = ContentHasher::new();
    // The current line: its displayable prefix and its full length.
    let mut kept: Vec<u8> = Vec::new();
    let mut line_len = 0usize;
    loop {
        let buf = match reader.fill_buf() {
            Ok([]) => break,
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if scan.total_bytes < BINARY_SNIFF_BYTES {
            let sniff = (BINARY_SNIFF_BYTES - scan.total_bytes) as usize;
            if buf[..buf.len().min(sniff)].contains(&0) {
                scan.binary = true;
                return Ok(scan);
            }
        }
        hasher.write(buf);
        let n = buf.len();
        let mut rest = buf;
        while !rest.is_empty() {
            let number = scan.total_lines + 1;
            let wanted = number >= start && number < end && !scan.over_cap;
            let (piece, newline) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            if wanted && kept.len() < LINE_KEEP_BYTES {
                let room = LINE_KEEP_BYTES - kept.len();
                kept.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            line_len += piece.len();
            if newline {
                finish_line(&mut scan, &kept, line_len, start, end, max_output);
                kept.clear();
                line_len = 0;
                rest = &rest[piece.len() + 1..];
            } else {
                rest = &[];
            }
        }
        scan.total_bytes += n as u64;
        reader.consume(n);
    }
    // A last line without a newline.
    if line_len > 0 {
        finish_line(&mut scan, &kept, line_len, start, end, max_output);
    }
    scan.hash = hasher.finish();
    Ok(scan)
}

fn finish_line(
    scan: &mut Scan,
    kept: &[u8],
    line_len: usize,
    start: usize,
    end: usize,
    max_output: usize,
) {
    scan.total_lines += 1;
    let number = scan.total_lines;
    if number < start || number >= end {
        return;
    }
    scan.range_chars += line_len.min(MAX_LINE_CHARS) + 8;
    if scan.over_cap {
        return;
    }
    let text = String::from_utf8_lossy(kept);
    if scan.out.len() + text.len().min(MAX_LINE_CHARS * 4) > max_output {
        scan.over_cap = true;
        return;
    }
    numbered_lines::push_line(&mut scan.out, number, &text);
    scan.shown += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file_state::content_hash;
    use pretty_assertions::assert_eq;

    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some((first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = *first;
            self.0 = rest;
            Ok(1)
        }
    }

    /// What the whole-file implementation produced, for comparison.
    fn whole(text: &str, start: usize, limit: usize) -> (usize, String) {
        let total = numbered_lines::lines(text).count();
        let mut out = String::new();
        for (i, line) in numbered_lines::lines(text)
            .skip(start - 1)
            .take(limit)
            .enumerate()
        {
            numbered_lines::push_line(&mut out, start + i, line);
        }
        (total, out)
    }

    #[test]
    fn matches_the_whole_file_reading_for_every_range() {
        let texts = [
            "",
            "\n",
            "a",
            "a\n",
            "a\n\n",
            "a\r\nb\r\n",
            "one\ntwo\nthree",
            "é\nü\n\n\nlast",
        ];
        for text in texts {
            for start in 1..6 {
                for limit in 1..6 {
                    // One byte per read crosses line ends in every position.
                    let scan = scan(OneByte(text.as_bytes()), start, limit, usize::MAX).unwrap();
                    let (total, out) = whole(text, start, limit);
                    assert_eq!(
                        (scan.total_lines, scan.out.as_str(), scan.hash),
                        (total, out.as_str(), content_hash(text.as_bytes())),
                        "{text:?} {start} {limit}"
                    );
                    assert_eq!(scan.total_bytes, text.len() as u64);
                }
            }
        }
    }

    fn config(default_cases: u32) -> proptest::test_runner::Config {
        let mut config = proptest::test_runner::Config::default();
        if std::env::var_os("PROPTEST_CASES").is_none() {
            config.cases = default_cases;
        }
        config
    }

    proptest::proptest! {
        #![proptest_config(config(2000))]

        /// The streaming pass reads like the whole-file reading it replaced,
        /// whatever the text, the range and where reads end.
        #[test]
        fn prop_the_streaming_pass_matches_the_whole_file_reading(
            text in "([a-zé\\r]{0,12}\n?){0,40}",
            start in 1usize..50,
            limit in 1usize..50,
            cut in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let bytes = text.as_bytes();
            let at = cut.index(bytes.len() + 1);
            // Two reads, split anywhere (even inside a character).
            let reader = Read::chain(&bytes[..at], &bytes[at..]);
            let scan = scan(reader, start, limit, usize::MAX).unwrap();
            let (total, out) = whole(&text, start, limit);
            proptest::prop_assert_eq!(scan.total_lines, total);
            proptest::prop_assert_eq!(scan.out, out);
            proptest::prop_assert_eq!(scan.hash, content_hash(bytes));
        }
    }

    #[test]
    fn a_huge_line_keeps_only_its_displayable_prefix() {
        let text = format!("{}\nshort\n", "x".repeat(1_000_000));
        let scan = scan(text.as_bytes(), 1, 10, usize::MAX).unwrap();
        assert_eq!(
            scan.out,
            format!(
                "1\t{}… [line truncated]\n2\tshort\n",
                "x".repeat(MAX_LINE_CHARS)
            )
        );
        assert_eq!(scan.range_chars, MAX_LINE_CHARS + 8 + 5 + 8);
    }

    #[test]
    fn a_nul_in_the_first_8k_is_binary_and_later_is_not() {
        assert!(scan(&b"ab\0cd"[..], 1, 10, usize::MAX).unwrap().binary);
        let mut late = vec![b'a'; 9000];
        late[8500] = 0;
        assert!(!scan(&late[..], 1, 10, usize::MAX).unwrap().binary);
    }

    #[test]
    fn output_stops_before_the_cap_and_counts_the_whole_range() {
        let text = "0123456789\n".repeat(10);
        let scan = scan(text.as_bytes(), 1, 100, 40).unwrap();
        assert!(scan.over_cap);
        // Each line takes 13 bytes; a fourth would pass 40 (39 + 10).
        assert_eq!(scan.out, "1\t0123456789\n2\t0123456789\n3\t0123456789\n");
        assert_eq!(scan.shown, 3);
        assert_eq!(scan.range_chars, 10 * 18);
        assert_eq!(scan.total_lines, 10);
    }
}
