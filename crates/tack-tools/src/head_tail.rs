//! A bounded capture of a byte stream: the first `head` bytes and the last `tail`
//! bytes, with everything in between counted and dropped. Memory stays at
//! `head + tail` however much the stream produces.

use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct HeadTail {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl HeadTail {
    pub(crate) fn new(head_cap: usize, tail_cap: usize) -> Self {
        HeadTail {
            head_cap,
            tail_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let n = room.min(chunk.len());
            self.head.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
        }
        if chunk.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + chunk.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(chunk);
        }
    }

    #[cfg(test)]
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The captured text; if bytes were dropped, a marker saying how many stands
    /// where they were. Cuts fall on character boundaries.
    pub(crate) fn render(&self) -> String {
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let dropped = self.total - (self.head.len() + tail.len()) as u64;
        if dropped == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let head = trim_incomplete_end(&self.head);
        let tail = trim_incomplete_start(&tail);
        let dropped = self.total - (head.len() + tail.len()) as u64;
        format!(
            "{}\n\n... [{dropped} bytes of output truncated] ...\n\n{}",
            String::from_utf8_lossy(head),
            String::from_utf8_lossy(tail)
        )
    }
}

/// `bytes` without a UTF-8 sequence cut off at its end.
fn trim_incomplete_end(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        Err(_) => bytes,
    }
}

/// `bytes` without UTF-8 continuation bytes at its start.
fn trim_incomplete_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0xC0) == 0x80)
        .count();
    &bytes[skip..]
}

/// Middle-truncates `text` to about `max` bytes, on character boundaries.
pub(crate) fn truncate_middle(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut ht = HeadTail::new(max / 2, max - max / 2);
    ht.push(text.as_bytes());
    ht.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_head_and_tail() {
        let mut ht = HeadTail::new(4, 4);
        for chunk in [&b"0123"[..], b"4567", b"89ab", b"cd"] {
            ht.push(chunk);
        }
        assert_eq!(
            ht.render(),
            "0123\n\n... [6 bytes of output truncated] ...\n\nabcd"
        );
        assert_eq!(ht.total(), 14);
    }

    #[test]
    fn small_output_is_whole() {
        let mut ht = HeadTail::new(4, 4);
        ht.push(b"hello");
        assert_eq!(ht.render(), "hello");
    }

    #[test]
    fn cuts_on_char_boundaries() {
        let text = "ééééééééé"; // 18 bytes
        let out = truncate_middle(text, 7);
        assert!(out.starts_with("éé\n") || out.starts_with("é\n"), "{out}");
        assert!(out.ends_with("éé") || out.ends_with('é'), "{out}");
    }
}
