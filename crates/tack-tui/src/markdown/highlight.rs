//! Syntax highlighting of code blocks: syntect with its default syntax set
//! (fancy-regex, no C library) and styles mapped onto the UI's [`Theme`] instead
//! of a theme dump. See the crate docs for why syntect and what it costs.

use std::str::FromStr;
use std::sync::LazyLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{
    Color as SynColor, FontStyle, ScopeSelectors, StyleModifier, Theme as SynTheme, ThemeItem,
    ThemeSettings,
};
use syntect::parsing::SyntaxSet;

use crate::theme::{Theme, ThemeKind};

/// Loaded on the first code block (or by [`preload_highlighter`]), not at
/// start-up: decompressing the set takes about 100 ms.
static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

/// Loads the syntax set on a background thread, so that the first code block
/// does not wait for it. Call once at start-up.
pub fn preload_highlighter() {
    std::thread::spawn(|| LazyLock::force(&SYNTAXES));
}

/// Marks "no colour from the theme": the terminal's own foreground.
const NO_COLOR: SynColor = SynColor {
    r: 1,
    g: 2,
    b: 3,
    a: 0,
};

type Rgb = (u8, u8, u8);

/// (scope selector, dark RGB, light RGB, italic)
const PALETTE: &[(&str, Rgb, Rgb, bool)] = &[
    ("comment", (106, 153, 85), (0, 128, 0), true),
    (
        "string, constant.character",
        (206, 145, 120),
        (163, 21, 21),
        false,
    ),
    (
        "constant.numeric, constant.language",
        (181, 206, 168),
        (9, 134, 88),
        false,
    ),
    ("keyword, storage", (86, 156, 214), (0, 0, 255), false),
    ("keyword.operator", (212, 212, 212), (56, 58, 66), false),
    (
        "entity.name.function, support.function, meta.function-call",
        (220, 220, 170),
        (121, 94, 38),
        false,
    ),
    (
        "entity.name.type, entity.name.class, support.type, storage.type",
        (78, 201, 176),
        (38, 127, 153),
        false,
    ),
    ("entity.name.tag", (86, 156, 214), (128, 0, 0), false),
    (
        "entity.other.attribute-name",
        (156, 220, 254),
        (229, 0, 0),
        false,
    ),
    ("variable.parameter", (156, 220, 254), (0, 16, 128), false),
    ("markup.inserted", (106, 153, 85), (0, 128, 0), false),
    ("markup.deleted", (206, 145, 120), (163, 21, 21), false),
    ("markup.heading", (86, 156, 214), (0, 0, 255), false),
];

fn syntect_theme(theme: &Theme) -> SynTheme {
    let scopes = PALETTE
        .iter()
        .filter_map(|(selector, dark, light, italic)| {
            let (r, g, b) = match theme.kind() {
                ThemeKind::Dark => *dark,
                ThemeKind::Light => *light,
            };
            Some(ThemeItem {
                scope: ScopeSelectors::from_str(selector).ok()?,
                style: StyleModifier {
                    foreground: Some(SynColor { r, g, b, a: 255 }),
                    background: None,
                    font_style: italic.then_some(FontStyle::ITALIC),
                },
            })
        })
        .collect();
    SynTheme {
        settings: ThemeSettings {
            foreground: Some(NO_COLOR),
            ..ThemeSettings::default()
        },
        scopes,
        ..SynTheme::default()
    }
}

static DARK: LazyLock<SynTheme> =
    LazyLock::new(|| syntect_theme(&Theme::new(ThemeKind::Dark, true)));
static LIGHT: LazyLock<SynTheme> =
    LazyLock::new(|| syntect_theme(&Theme::new(ThemeKind::Light, true)));

/// Highlights `code` (a fenced block's content) as `lang` (the fence's info
/// string: a name or a file extension). Unknown languages, and a theme without
/// colour, give plain lines. One line per source line; tabs become 4 spaces.
pub fn highlight_code(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
    let code = code
        .strip_suffix('\n')
        .unwrap_or(code)
        .replace('\t', "    ");
    let plain = || code.split('\n').map(|l| Line::raw(l.to_string())).collect();
    let token = lang.split([' ', ',', '{']).next().unwrap_or("").trim();
    if !theme.has_color() || token.is_empty() {
        return plain();
    }
    let syntaxes: &SyntaxSet = &SYNTAXES;
    let Some(syntax) = find_syntax(syntaxes, token) else {
        return plain();
    };
    let syn_theme: &SynTheme = match theme.kind() {
        ThemeKind::Dark => &DARK,
        ThemeKind::Light => &LIGHT,
    };
    let mut h = HighlightLines::new(syntax, syn_theme);
    let mut lines = Vec::new();
    for source_line in code.split('\n') {
        let with_newline = format!("{source_line}\n");
        let Ok(regions) = h.highlight_line(&with_newline, syntaxes) else {
            return plain();
        };
        let spans: Vec<Span<'static>> = regions
            .into_iter()
            .filter_map(|(style, text)| {
                let text = text.trim_end_matches('\n');
                (!text.is_empty()).then(|| Span::styled(text.to_string(), to_style(style)))
            })
            .collect();
        lines.push(Line::from(spans));
    }
    lines
}

fn find_syntax<'a>(
    syntaxes: &'a SyntaxSet,
    token: &str,
) -> Option<&'a syntect::parsing::SyntaxReference> {
    let alias = match token.to_ascii_lowercase().as_str() {
        "shell" | "zsh" | "console" | "sh" => "bash",
        "py" | "python3" => "python",
        // The default set has no TypeScript; JavaScript's grammar covers most of it.
        "ts" | "typescript" | "tsx" | "jsx" | "js" | "node" | "mjs" | "cjs" => "javascript",
        "yml" => "yaml",
        "c++" | "hpp" | "cc" => "cpp",
        _ => token,
    }
    .to_string();
    syntaxes
        .find_syntax_by_token(&alias)
        .or_else(|| syntaxes.find_syntax_by_token(token))
}

fn to_style(style: syntect::highlighting::Style) -> Style {
    let mut out = Style::new();
    let fg = style.foreground;
    if fg != NO_COLOR {
        out = out.fg(Color::Rgb(fg.r, fg.g, fg.b));
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    out
}

/// Names of the languages that are highlighted (for docs and tests).
pub fn highlighted_languages() -> Vec<String> {
    SYNTAXES.syntaxes().iter().map(|s| s.name.clone()).collect()
}
