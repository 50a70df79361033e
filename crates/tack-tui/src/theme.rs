//! Colours and text styles, for dark and light terminals, or none at all (NO_COLOR).

use std::ffi::OsStr;

use ratatui::style::{Color, Modifier, Style};

/// The terminal's background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeKind {
    Dark,
    Light,
}

/// Every style the UI uses. With colour off (NO_COLOR), styles keep only
/// modifiers (bold, dim, italic, reverse), so the UI stays readable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    kind: ThemeKind,
    color: bool,
}

/// Whether colour is allowed, from the value of `NO_COLOR` (see no-color.org:
/// set and non-empty disables colour). The caller reads the environment.
pub fn color_allowed(no_color: Option<&OsStr>) -> bool {
    no_color.is_none_or(|v| v.is_empty())
}

impl ThemeKind {
    /// The background from `COLORFGBG` (`"fg;bg"`, set by rxvt, Konsole and
    /// others; the caller reads the environment): light for backgrounds 7 and
    /// 9-15, dark otherwise and when unset.
    pub fn from_colorfgbg(value: Option<&str>) -> ThemeKind {
        let bg = value
            .and_then(|v| v.rsplit(';').next())
            .and_then(|bg| bg.trim().parse::<u8>().ok());
        match bg {
            Some(7 | 9..=15) => ThemeKind::Light,
            _ => ThemeKind::Dark,
        }
    }
}

impl Theme {
    pub fn new(kind: ThemeKind, color: bool) -> Theme {
        Theme { kind, color }
    }

    pub fn kind(&self) -> ThemeKind {
        self.kind
    }

    pub fn has_color(&self) -> bool {
        self.color
    }

    fn fg(&self, dark: Color, light: Color) -> Style {
        if !self.color {
            return Style::new();
        }
        match self.kind {
            ThemeKind::Dark => Style::new().fg(dark),
            ThemeKind::Light => Style::new().fg(light),
        }
    }

    pub fn text(&self) -> Style {
        Style::new()
    }

    pub fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// The brand colour: prompt marker, spinner, selection.
    pub fn accent(&self) -> Style {
        self.fg(Color::Rgb(215, 119, 87), Color::Rgb(176, 78, 45))
    }

    pub fn selected(&self) -> Style {
        if self.color {
            self.accent().add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    pub fn user_prompt(&self) -> Style {
        self.fg(Color::Gray, Color::DarkGray)
    }

    pub fn thinking(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC)
    }

    pub fn heading(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn inline_code(&self) -> Style {
        self.fg(Color::Rgb(177, 185, 249), Color::Rgb(87, 105, 247))
    }

    pub fn link(&self) -> Style {
        self.fg(Color::Rgb(147, 165, 255), Color::Rgb(37, 99, 235))
            .add_modifier(Modifier::UNDERLINED)
    }

    pub fn quote(&self) -> Style {
        self.dim().add_modifier(Modifier::ITALIC)
    }

    pub fn success(&self) -> Style {
        self.fg(Color::Rgb(78, 186, 101), Color::Rgb(44, 122, 57))
    }

    pub fn error(&self) -> Style {
        self.fg(Color::Rgb(255, 107, 128), Color::Rgb(171, 43, 63))
    }

    pub fn warning(&self) -> Style {
        self.fg(Color::Rgb(255, 193, 7), Color::Rgb(150, 108, 30))
    }

    /// Added lines of a diff.
    pub fn diff_added(&self) -> Style {
        if self.color {
            match self.kind {
                ThemeKind::Dark => Style::new().bg(Color::Rgb(34, 92, 43)),
                ThemeKind::Light => Style::new().bg(Color::Rgb(204, 255, 216)),
            }
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    /// Removed lines of a diff.
    pub fn diff_removed(&self) -> Style {
        if self.color {
            match self.kind {
                ThemeKind::Dark => Style::new().bg(Color::Rgb(122, 41, 54)),
                ThemeKind::Light => Style::new().bg(Color::Rgb(255, 220, 224)),
            }
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn border(&self) -> Style {
        self.fg(Color::DarkGray, Color::Gray)
    }

    /// Permission mode names in the status area.
    pub fn mode(&self) -> Style {
        self.fg(Color::Rgb(175, 135, 255), Color::Rgb(130, 80, 223))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn background_and_no_color() {
        assert_eq!(ThemeKind::from_colorfgbg(Some("15;0")), ThemeKind::Dark);
        assert_eq!(ThemeKind::from_colorfgbg(Some("0;15")), ThemeKind::Light);
        assert_eq!(
            ThemeKind::from_colorfgbg(Some("0;default;7")),
            ThemeKind::Light
        );
        assert_eq!(ThemeKind::from_colorfgbg(None), ThemeKind::Dark);
        assert!(color_allowed(None));
        assert!(color_allowed(Some(OsStr::new(""))));
        assert!(!color_allowed(Some(OsStr::new("1"))));
        assert_eq!(Theme::new(ThemeKind::Dark, false).accent(), Style::new());
        assert_ne!(
            Theme::new(ThemeKind::Dark, true).accent(),
            Theme::new(ThemeKind::Light, true).accent()
        );
    }
}
