use super::*;
use pretty_assertions::assert_eq;

/// Types `keys` (`<esc>`, `<bs>` and `<cr>` spelled so) into a prompt
/// holding `text` with the cursor at `at`, in NORMAL; INSERT typing goes
/// into the editor as the prompt would put it. Returns the text with `|`
/// at the cursor, and the mode.
fn run_on(vim: &mut Vim, text: &str, at: usize, keys: &str) -> (String, VimMode) {
    let mut editor = Editor::new();
    editor.set_text(text);
    editor.set_cursor(at);
    press(vim, &mut editor, keys);
    let mut shown = editor.text().to_owned();
    shown.insert(editor.cursor(), '|');
    (shown, vim.mode())
}

fn press(vim: &mut Vim, editor: &mut Editor, keys: &str) {
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        let (code, len) = if rest.starts_with("<esc>") {
            (KeyCode::Esc, 5)
        } else if rest.starts_with("<bs>") {
            (KeyCode::Backspace, 4)
        } else if rest.starts_with("<cr>") {
            (KeyCode::Enter, 4)
        } else {
            (KeyCode::Char(c), c.len_utf8())
        };
        rest = &rest[len..];
        let key = KeyEvent::new(code, KeyModifiers::NONE);
        if vim.key(&key, editor) == VimKey::PassThrough {
            match code {
                KeyCode::Char(c) => editor.insert_char(c),
                KeyCode::Backspace => editor.backspace(),
                _ => {}
            }
        }
    }
}

fn normal() -> Vim {
    let mut vim = Vim::new();
    vim.mode = VimMode::Normal;
    vim
}

fn run(text: &str, at: usize, keys: &str) -> String {
    run_on(&mut normal(), text, at, keys).0
}

#[test]
fn starts_in_insert_and_esc_steps_back_into_normal() {
    let mut vim = Vim::new();
    assert_eq!(vim.mode(), VimMode::Insert);
    assert_eq!(
        run_on(&mut vim, "", 0, "hello<esc>"),
        ("hell|o".to_owned(), VimMode::Normal)
    );
    // Esc in NORMAL with nothing pending is the prompt's (chat:cancel).
    let mut editor = Editor::new();
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(vim.key(&esc, &mut editor), VimKey::PassThrough);
    // Enter submits in either mode; Ctrl keys are the prompt's.
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(vim.key(&enter, &mut editor), VimKey::PassThrough);
    let ctrl_t = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert_eq!(vim.key(&ctrl_t, &mut editor), VimKey::PassThrough);
}

#[test]
fn insert_commands() {
    assert_eq!(run_on(&mut normal(), "abc", 1, "iX<esc>").0, "a|Xbc");
    assert_eq!(run("abc", 1, "aX<esc>"), "ab|Xc");
    assert_eq!(run("  abc", 4, "IX<esc>"), "  |Xabc");
    assert_eq!(run("abc\ndef", 0, "AX<esc>"), "abc|X\ndef");
    assert_eq!(run("abc\ndef", 1, "oX<esc>"), "abc\n|X\ndef");
    assert_eq!(run("abc\ndef", 5, "OX<esc>"), "abc\n|X\ndef");
    let (_, mode) = run_on(&mut normal(), "abc", 0, "a");
    assert_eq!(mode, VimMode::Insert);
}

#[test]
fn motions() {
    let t = "foo bar.baz\n  qux end";
    assert_eq!(run(t, 0, "w"), "foo |bar.baz\n  qux end");
    assert_eq!(run(t, 0, "3w"), "foo bar.|baz\n  qux end");
    assert_eq!(run(t, 0, "W"), "foo |bar.baz\n  qux end");
    assert_eq!(run(t, 0, "2W"), "foo bar.baz\n  |qux end");
    assert_eq!(run(t, 0, "e"), "fo|o bar.baz\n  qux end");
    assert_eq!(run(t, 8, "b"), "foo bar|.baz\n  qux end");
    assert_eq!(run(t, 8, "B"), "foo |bar.baz\n  qux end");
    assert_eq!(run(t, 0, "$"), "foo bar.ba|z\n  qux end");
    assert_eq!(run(t, 5, "0"), "|foo bar.baz\n  qux end");
    assert_eq!(run(t, 20, "^"), "foo bar.baz\n  |qux end");
    assert_eq!(run(t, 0, "l2l"), "foo| bar.baz\n  qux end");
    assert_eq!(run(t, 2, "h h"), "f|oo bar.baz\n  qux end");
    assert_eq!(run(t, 2, "j"), "foo bar.baz\n  |qux end");
    assert_eq!(run(t, 14, "k"), "fo|o bar.baz\n  qux end");
    assert_eq!(run(t, 14, "gg"), "|foo bar.baz\n  qux end");
    assert_eq!(run(t, 0, "G"), "foo bar.baz\n|  qux end");
    // `l` stops on the last character; `$` too.
    assert_eq!(run("ab", 0, "lll"), "a|b");
}

#[test]
fn finds_and_their_repeats() {
    let t = "a.b.c.d";
    assert_eq!(run(t, 0, "f."), "a|.b.c.d");
    assert_eq!(run(t, 0, "f.;"), "a.b|.c.d");
    assert_eq!(run(t, 0, "f.;;,"), "a.b|.c.d");
    assert_eq!(run(t, 0, "2f."), "a.b|.c.d");
    assert_eq!(run(t, 0, "tc"), "a.b|.c.d");
    assert_eq!(run(t, 6, "F."), "a.b.c|.d");
    assert_eq!(run(t, 6, "Tb"), "a.b|.c.d");
    // No such character: the cursor stays.
    assert_eq!(run(t, 0, "fz"), "|a.b.c.d");
}

#[test]
fn operators_with_motions() {
    let t = "one two three";
    assert_eq!(run(t, 0, "x"), "|ne two three");
    assert_eq!(run(t, 0, "3x"), "| two three");
    // A count past the end stops there (and is capped: no long loop).
    assert_eq!(run(t, 0, "99999999999w"), "one two thre|e");
    assert_eq!(run(t, 4, "99999999999x"), "one| ");
    assert_eq!(run(t, 0, "dw"), "|two three");
    assert_eq!(run(t, 0, "2dw"), "|three");
    assert_eq!(run(t, 0, "de"), "| two three");
    assert_eq!(run(t, 8, "db"), "one |three");
    assert_eq!(run(t, 4, "D"), "one| ");
    assert_eq!(run(t, 4, "d$"), "one| ");
    assert_eq!(run(t, 4, "d0"), "|two three");
    assert_eq!(run(t, 0, "dt "), "| two three");
    assert_eq!(run(t, 0, "df "), "|two three");
    // `dw` on a line's last word stops at its end.
    assert_eq!(run("ab cd\nef", 3, "dw"), "ab| \nef");
    // `cw` changes to the word's end, as vim's; `C`, `s`, `S`, `cc`.
    assert_eq!(run(t, 0, "cwONE<esc>"), "ON|E two three");
    assert_eq!(run("a b c", 0, "cwX<esc>"), "|X b c");
    assert_eq!(run(t, 0, "2cwX<esc>"), "|X three");
    assert_eq!(run(t, 4, "CX<esc>"), "one |X");
    assert_eq!(run(t, 0, "sO<esc>"), "|One two three");
    assert_eq!(run("ab\ncd", 4, "ccX<esc>"), "ab\n|X");
    assert_eq!(run("ab\ncd", 0, "SX<esc>"), "|X\ncd");
}

#[test]
fn text_objects_with_operators() {
    let t = r#"say "hi there" (a b) now"#;
    assert_eq!(run(t, 1, "diw"), r#"| "hi there" (a b) now"#);
    assert_eq!(run(t, 1, "daw"), r#"|"hi there" (a b) now"#);
    assert_eq!(run(t, 6, "ci\"yo<esc>"), r#"say "y|o" (a b) now"#);
    assert_eq!(run(t, 6, "da\""), r#"say | (a b) now"#);
    assert_eq!(run(t, 17, "di("), r#"say "hi there" (|) now"#);
    assert_eq!(run(t, 17, "ca)x<esc>"), r#"say "hi there" |x now"#);
}

#[test]
fn lines_yank_and_paste() {
    let t = "one\ntwo\nthree";
    assert_eq!(run(t, 5, "dd"), "one\n|three");
    assert_eq!(run(t, 0, "2dd"), "|three");
    assert_eq!(run(t, 9, "dd"), "one\n|two");
    assert_eq!(run(t, 0, "dj"), "|three");
    assert_eq!(run(t, 5, "dk"), "|three");
    assert_eq!(run(t, 5, "dG"), "|one");
    assert_eq!(run(t, 5, "dgg"), "|three");
    assert_eq!(run(t, 0, "yyjp"), "one\ntwo\n|one\nthree");
    assert_eq!(run(t, 4, "yyP"), "one\n|two\ntwo\nthree");
    assert_eq!(run(t, 4, "Yjp"), "one\ntwo\nthree\n|two");
    assert_eq!(run(t, 4, "ddp"), "one\nthree\n|two");
    assert_eq!(run("ab cd", 0, "ywP"), "ab| ab cd");
    assert_eq!(run("ab cd", 0, "xp"), "b|a cd");
    assert_eq!(run("ab cd", 0, "ye$p"), "ab cda|b");
    assert_eq!(run("a\n  b\nc", 0, "J"), "a| b\nc");
    assert_eq!(run("a\nb\nc", 0, "3J"), "a b| c");
    assert_eq!(run("abc", 0, "rX"), "|Xbc");
    assert_eq!(run("abc", 0, "2rX"), "X|Xc");
    assert_eq!(run("abc", 0, "5rX"), "|abc");
}

#[test]
fn undo_and_repeat() {
    let mut vim = normal();
    let mut editor = Editor::new();
    editor.set_text("a b c d");
    editor.set_cursor(0);
    press(&mut vim, &mut editor, "dw..");
    assert_eq!(editor.text(), "d");
    press(&mut vim, &mut editor, "u");
    assert_eq!(editor.text(), "c d");
    press(&mut vim, &mut editor, "uu");
    assert_eq!(editor.text(), "a b c d");
    // A change with what was typed after it: `cw`, then `.` elsewhere.
    press(&mut vim, &mut editor, "cwX<esc>w.");
    assert_eq!(editor.text(), "X X c d");
    // An insert is one undo step, and `.` repeats it.
    press(&mut vim, &mut editor, "u");
    assert_eq!(editor.text(), "X b c d");
    press(&mut vim, &mut editor, "$aYZ<bs><esc>.");
    assert_eq!(editor.text(), "X b c dYY");
    press(&mut vim, &mut editor, "uu");
    assert_eq!(editor.text(), "X b c d");
}

#[test]
fn history_search_and_help_keys() {
    let mut vim = normal();
    let mut editor = Editor::new();
    editor.set_text("one\ntwo");
    editor.set_cursor(0);
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    assert_eq!(vim.key(&key('k'), &mut editor), VimKey::HistoryPrevious);
    assert_eq!(
        vim.key(&key('j'), &mut editor),
        VimKey::Handled { edited: false }
    );
    assert_eq!(vim.key(&key('j'), &mut editor), VimKey::HistoryNext);
    assert_eq!(vim.key(&key('/'), &mut editor), VimKey::Search);
    assert_eq!(vim.key(&key('?'), &mut editor), VimKey::Help);
    // A pending operator takes Esc; arrows are the prompt's when idle.
    assert_eq!(
        vim.key(&key('d'), &mut editor),
        VimKey::Handled { edited: false }
    );
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(
        vim.key(&esc, &mut editor),
        VimKey::Handled { edited: false }
    );
    let up = KeyEvent::new(KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(vim.key(&up, &mut editor), VimKey::PassThrough);
    assert_eq!(editor.text(), "one\ntwo");
}

#[test]
fn shift_case_and_delete_before() {
    let t = "one\ntwo\nthree";
    assert_eq!(run(t, 0, ">>"), "  |one\ntwo\nthree");
    assert_eq!(run(t, 4, "2>>"), "one\n  |two\n  three");
    assert_eq!(run(t, 0, ">j"), "  |one\n  two\nthree");
    assert_eq!(run(t, 0, ">G"), "  |one\n  two\n  three");
    assert_eq!(run("  a\n\tb\n c\nd", 0, "4<<"), "|a\nb\nc\nd");
    assert_eq!(run("    a", 4, "<<"), "  |a");
    // An empty line is not indented; `.` shifts again.
    assert_eq!(run("a\n\nb", 0, "3>>."), "    |a\n\n    b");
    assert_eq!(run("abc Def", 0, "~"), "A|bc Def");
    assert_eq!(run("abc Def", 0, "5~"), "ABC d|ef");
    assert_eq!(run("ab\ncd", 0, "9~"), "A|B\ncd");
    assert_eq!(run("abc Def", 4, "~."), "abc dE|f");
    assert_eq!(run("abcd", 3, "X"), "ab|d");
    assert_eq!(run("abcd", 3, "2X"), "a|d");
    // `X` does not cross into the line above.
    assert_eq!(run("ab\ncd", 4, "5X"), "ab\n|d");
    assert_eq!(run("abcd", 0, "X"), "|abcd");
}

#[test]
fn a_count_on_dot_replaces_the_changes_own() {
    assert_eq!(run("a b c d e f", 0, "dw3."), "|e f");
    assert_eq!(run("a b c d e f", 0, "2dw."), "|e f");
    assert_eq!(run("a b c d e f", 0, "2dw1."), "|d e f");
    assert_eq!(run("abcdef", 0, "x2."), "|def");
    // Undo takes the whole repeat back.
    assert_eq!(run("a b c d e f", 0, "dw3.u"), "|b c d e f");
}

#[test]
fn visual_mode_selects_and_operates() {
    let t = "one two three";
    let mut vim = normal();
    let mut editor = Editor::new();
    editor.set_text(t);
    editor.set_cursor(4);
    press(&mut vim, &mut editor, "ve");
    assert_eq!(vim.mode(), VimMode::Visual);
    assert_eq!(vim.selection(&editor), Some(4..7));
    press(&mut vim, &mut editor, "o");
    assert_eq!(editor.cursor(), 4);
    assert_eq!(vim.selection(&editor), Some(4..7));
    press(&mut vim, &mut editor, "<esc>");
    assert_eq!(
        (vim.mode(), vim.selection(&editor)),
        (VimMode::Normal, None)
    );
    assert_eq!(run(t, 4, "vex"), "one | three");
    assert_eq!(run(t, 4, "vwd"), "one |hree");
    assert_eq!(run(t, 4, "vbd"), "|wo three");
    assert_eq!(run(t, 4, "veyP"), "one tw|otwo three");
    assert_eq!(run(t, 4, "vecTWO<esc>"), "one TW|O three");
    assert_eq!(run(t, 0, "v$~"), "|ONE TWO THREE");
    assert_eq!(run(t, 0, "2vl"), "o|ne two three");
    assert_eq!(run(t, 0, "vfwd"), "|o three");
    assert_eq!(run(t, 0, "vgg"), "|one two three");
    // `v` again leaves; `V` switches to lines.
    let (_, mode) = run_on(&mut normal(), t, 0, "vlv");
    assert_eq!(mode, VimMode::Normal);
    let (_, mode) = run_on(&mut normal(), t, 0, "vV");
    assert_eq!(mode, VimMode::VisualLine);
}

#[test]
fn visual_line_mode_takes_whole_lines() {
    let t = "one\ntwo\nthree\nfour";
    let mut vim = normal();
    let mut editor = Editor::new();
    editor.set_text(t);
    editor.set_cursor(5);
    press(&mut vim, &mut editor, "Vj");
    assert_eq!(vim.mode(), VimMode::VisualLine);
    assert_eq!(vim.selection(&editor), Some(4..13));
    assert_eq!(run(t, 5, "Vjd"), "one\n|four");
    assert_eq!(run(t, 5, "Vjyjjp"), "one\ntwo\nthree\nfour\n|two\nthree");
    assert_eq!(run(t, 5, "Vj>"), "one\n  |two\n  three\nfour");
    assert_eq!(run("  a\n  b", 0, "Vj<"), "|a\nb");
    assert_eq!(run(t, 5, "VjcX<esc>"), "one\n|X\nfour");
    assert_eq!(run(t, 0, "VGd"), "|");
    // One undo step for the change, the insert included.
    assert_eq!(run(t, 5, "VjcX<esc>u"), "one\n|two\nthree\nfour");
    assert_eq!(run(t, 5, "Vjdu"), "one\n|two\nthree\nfour");
}

#[test]
fn enter_in_visual_sends_the_prompt_and_leaves_visual() {
    let mut vim = normal();
    let mut editor = Editor::new();
    editor.set_text("abc");
    press(&mut vim, &mut editor, "vl");
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(vim.key(&enter, &mut editor), VimKey::PassThrough);
    assert_eq!(vim.mode(), VimMode::Normal);
    assert_eq!(VimMode::Visual.name(), "VISUAL");
    assert_eq!(VimMode::VisualLine.name(), "VISUAL LINE");
}

#[test]
fn visual_mode_has_claude_codes_other_commands() {
    let t = "one two three";
    assert_eq!(run(t, 4, "vlrX"), "one |XXo three");
    assert_eq!(run("ab\ncd", 0, "vjr-"), "|--\n-d");
    assert_eq!(run("One Two", 0, "v$U"), "|ONE TWO");
    assert_eq!(run("One Two", 0, "v$u"), "|one two");
    assert_eq!(run(t, 0, "yiwwviwp"), "one on|e three");
    assert_eq!(run("a\nb\nc\nd", 0, "VjjJ"), "a b| c\nd");
    assert_eq!(run(t, 5, "viwd"), "one | three");
    assert_eq!(run(r#"say "hi there" now"#, 6, "vi\"d"), r#"say "|" now"#);
    assert_eq!(
        run(r#"say "hi there" now"#, 6, "va\"y$p"),
        r#"say "hi there" now"hi there|""#
    );
    // Ctrl+[ is Esc, in INSERT and in VISUAL.
    let mut vim = Vim::new();
    let mut editor = Editor::new();
    let ctrl_bracket = KeyEvent::new(KeyCode::Char('['), KeyModifiers::CONTROL);
    vim.key(&ctrl_bracket, &mut editor);
    assert_eq!(vim.mode(), VimMode::Normal);
    press(&mut vim, &mut editor, "v");
    vim.key(&ctrl_bracket, &mut editor);
    assert_eq!(vim.mode(), VimMode::Normal);
}

#[test]
fn insert_mode_remaps_take_two_keys_within_a_second() {
    let setting = serde_json::json!({"jj": "<Esc>", "jk": "Esc", "abc": "<Esc>", "kj": "<Esc>"});
    let pairs = insert_remaps(Some(&setting));
    // Two printable characters to "<Esc>" only.
    assert_eq!(pairs, [('j', 'j'), ('k', 'j')]);
    assert_eq!(insert_remaps(Some(&serde_json::json!(["jj"]))), []);
    let start = std::time::Instant::now();
    let at = |ms| start + std::time::Duration::from_millis(ms);
    let type_at = |vim: &mut Vim, editor: &mut Editor, c: char, ms: u64| {
        let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        if vim.key_at(&key, editor, at(ms)) == VimKey::PassThrough {
            editor.insert_char(c);
        }
    };
    let mut vim = Vim::with_remaps(pairs);
    let mut editor = Editor::new();
    for (i, c) in "hij".chars().enumerate() {
        type_at(&mut vim, &mut editor, c, i as u64 * 10);
    }
    type_at(&mut vim, &mut editor, 'j', 500);
    // Neither j stays; NORMAL, on the last character typed before them.
    assert_eq!((editor.text(), vim.mode()), ("hi", VimMode::Normal));
    assert_eq!(editor.cursor(), 1);
    // Too slow, or another key between: both are text.
    let mut vim = Vim::with_remaps(vec![('j', 'j')]);
    let mut editor = Editor::new();
    type_at(&mut vim, &mut editor, 'j', 0);
    type_at(&mut vim, &mut editor, 'j', 1001);
    type_at(&mut vim, &mut editor, 'x', 1002);
    type_at(&mut vim, &mut editor, 'j', 1003);
    let bs = KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE);
    assert_eq!(vim.key_at(&bs, &mut editor, at(1004)), VimKey::PassThrough);
    editor.backspace();
    type_at(&mut vim, &mut editor, 'j', 1005);
    assert_eq!((editor.text(), vim.mode()), ("jjxj", VimMode::Insert));
    // A second j in time: NORMAL, the first taken back.
    type_at(&mut vim, &mut editor, 'j', 1006);
    assert_eq!((editor.text(), vim.mode()), ("jjx", VimMode::Normal));
}
