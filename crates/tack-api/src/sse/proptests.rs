//! Properties of the SSE framer: any chunking of the same bytes gives the same
//! frames, well-formed events come out as they went in, and the buffer only
//! ever holds the event being framed. `PROPTEST_CASES` raises the case count.

use proptest::prelude::*;

use super::SseFramer;

fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

type Frames = Vec<(Vec<u8>, Vec<u8>)>;

/// Feeds `input` cut at `cuts` (positions, any order), draining frames after
/// each piece; returns the frames and the largest live buffer seen.
fn frame(input: &[u8], cuts: &[usize]) -> (Frames, usize) {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.push(input.len());
    cuts.sort_unstable();
    let mut framer = SseFramer::default();
    let mut out = Vec::new();
    let mut live = 0;
    let mut from = 0;
    let drain = |framer: &mut SseFramer, out: &mut Frames| {
        while let Some(f) = framer.next_frame() {
            out.push((f.event.to_vec(), f.data.to_vec()));
        }
    };
    for to in cuts {
        framer.push(&input[from..to]).unwrap();
        drain(&mut framer, &mut out);
        live = live.max(framer.buf.len() - framer.start);
        from = to;
    }
    framer.finish();
    drain(&mut framer, &mut out);
    (out, live)
}

/// Bytes SSE cares about, mixed with anything.
fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => prop::sample::select(b"\n\r: datevn".to_vec()),
        1 => any::<u8>(),
    ];
    prop::collection::vec(byte, 0..2048)
}

/// One well-formed event: optional name, data lines, comment lines before it.
#[derive(Debug, Clone)]
struct Event {
    comments: Vec<String>,
    name: Option<String>,
    data: Vec<String>,
}

/// Field text: no line ends (anything else, including `:` and leading blanks).
fn field_text() -> impl Strategy<Value = String> {
    "[^\r\n]{0,40}"
}

fn event() -> impl Strategy<Value = Event> {
    (
        prop::collection::vec(field_text(), 0..2),
        prop::option::of(field_text()),
        prop::collection::vec(field_text(), 0..4),
    )
        .prop_map(|(comments, name, data)| Event {
            comments,
            name,
            data,
        })
}

fn encode(events: &[Event], endings: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut end = |out: &mut Vec<u8>| {
        let mut ending: &[u8] = match endings[i % endings.len()] % 3 {
            0 => b"\n",
            1 => b"\r\n",
            _ => b"\r",
        };
        // `\r` then `\n` would be one `\r\n` line end, not two.
        if out.last() == Some(&b'\r') && ending[0] == b'\n' {
            ending = b"\r\n";
        }
        i += 1;
        out.extend_from_slice(ending);
    };
    for e in events {
        for c in &e.comments {
            out.push(b':');
            out.extend_from_slice(c.as_bytes());
            end(&mut out);
        }
        if let Some(name) = &e.name {
            out.extend_from_slice(b"event: ");
            out.extend_from_slice(name.as_bytes());
            end(&mut out);
        }
        for d in &e.data {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(d.as_bytes());
            end(&mut out);
        }
        end(&mut out);
    }
    out
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn prop_framer_chunking_does_not_change_the_frames(
        input in sse_bytes(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let (whole, _) = frame(&input, &[]);
        let (chunked, _) = frame(&input, &cuts);
        prop_assert_eq!(whole, chunked);
    }

    #[test]
    fn prop_framer_gives_back_the_events_it_was_given_in_bounded_memory(
        events in prop::collection::vec(event(), 0..12),
        endings in prop::collection::vec(any::<u8>(), 1..8),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let input = encode(&events, &endings);
        let (frames, live) = frame(&input, &cuts);
        let expected: Frames = events
            .iter()
            .filter(|e| !e.data.is_empty())
            .map(|e| (
                e.name.clone().unwrap_or_else(|| "message".into()).into_bytes(),
                e.data.join("\n").into_bytes(),
            ))
            .collect();
        prop_assert_eq!(frames, expected);
        // The buffer holds one event (its lines and comments) at most, plus a
        // line end that may be half-read.
        let longest = events
            .iter()
            .map(|e| encode(std::slice::from_ref(e), &[1]).len())
            .max()
            .unwrap_or(0);
        prop_assert!(live <= longest + 2, "live {} > {}", live, longest + 2);
    }
}
