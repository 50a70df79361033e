//! Finding and reading skills: one warning per skill that cannot be read or
//! whose frontmatter is bad; the others load.

use std::path::{Path, PathBuf};

use super::{Skill, SkillSource, Skills};
use crate::frontmatter::read_markdown;
use crate::plugins::PluginPaths;

/// Where skills are looked for.
#[derive(Debug, Clone)]
pub struct SkillDirs {
    /// The project root (`.claude/skills`).
    pub project: PathBuf,
    /// The session's cwd: the `.claude/skills` of folders from it up to the
    /// project root are the project's too, named with their folder.
    pub cwd: PathBuf,
    /// The user's skill folders, first wins (`<Claude user dir>/skills`,
    /// tack's `<config dir>/skills`).
    pub user: Vec<PathBuf>,
    /// `--setting-sources` reads the project level (else no project skill).
    pub project_source: bool,
    /// The project is trusted. An untrusted project's skills are not loaded:
    /// their instructions steer the model as the user's would.
    pub trusted: bool,
    /// The session's plugins' skill folders (`plugin:skill`), after the
    /// user's and the project's.
    pub plugins: Vec<PluginPaths>,
}

/// The skills of `dirs`, sorted by name: a user skill hides a project skill
/// of the same name (Claude Code's order). Also one warning line per skill
/// skipped.
pub fn load_skills(dirs: &SkillDirs) -> (Skills, Vec<String>) {
    let mut folders: Vec<(PathBuf, SkillSource, String)> = dirs
        .user
        .iter()
        .map(|d| (d.clone(), SkillSource::User, String::new()))
        .collect();
    let project = match dirs.project_source {
        true => project_folders(dirs),
        false => Vec::new(),
    };
    let mut warnings = Vec::new();
    if dirs.trusted {
        folders.extend(project);
    } else if let Some((folder, ..)) = project.iter().find(|(f, ..)| f.is_dir()) {
        warnings.push(format!(
            "warning: {}: project skills not loaded until the project is trusted (tack trust)",
            folder.display()
        ));
    }
    let mut skills: Vec<Skill> = Vec::new();
    let mut found: Vec<(Vec<PathBuf>, SkillSource, String)> = folders
        .into_iter()
        .map(|(folder, source, prefix)| (skill_dirs(&folder), source, prefix))
        .collect();
    for plugin in &dirs.plugins {
        // A path is a folder of skills, or (from the manifest) one skill.
        let dirs = plugin
            .paths
            .iter()
            .flat_map(|p| match p.join("SKILL.md").is_file() {
                true => vec![p.clone()],
                false => skill_dirs(p),
            })
            .collect();
        found.push((dirs, SkillSource::Plugin, format!("{}:", plugin.plugin)));
    }
    for (dirs, source, prefix) in found {
        for dir in dirs {
            match read_skill(&dir, source, &prefix) {
                Ok(skill) if skills.iter().any(|s| s.name == skill.name) => {}
                Ok(skill) => skills.push(skill),
                Err(message) => warnings.push(format!(
                    "warning: {}: {message}; skill skipped",
                    dir.join("SKILL.md").display()
                )),
            }
        }
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    (Skills(skills), warnings)
}

/// The project root's `.claude/skills`, then those of the folders below it
/// down to the cwd, each with its name prefix (`apps/web:`).
fn project_folders(dirs: &SkillDirs) -> Vec<(PathBuf, SkillSource, String)> {
    let mut out = vec![(
        dirs.project.join(".claude/skills"),
        SkillSource::Project,
        String::new(),
    )];
    if let Ok(below) = dirs.cwd.strip_prefix(&dirs.project) {
        let mut at = dirs.project.clone();
        for part in below.components() {
            at.push(part);
            let rel = at
                .strip_prefix(&dirs.project)
                .unwrap_or(&at)
                .to_string_lossy()
                .into_owned();
            out.push((
                at.join(".claude/skills"),
                SkillSource::Project,
                format!("{rel}:"),
            ));
        }
    }
    out
}

/// The folders under `folder` holding a `SKILL.md`, sorted. Only real
/// folders (a symlinked one is followed: users link shared skills in) and
/// regular files (a FIFO would block).
fn skill_dirs(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.join("SKILL.md").metadata().is_ok_and(|m| m.is_file()))
        .collect();
    out.sort();
    out
}

fn read_skill(dir: &Path, source: SkillSource, prefix: &str) -> Result<Skill, String> {
    let (front, body) = read_markdown(&dir.join("SKILL.md"))?;
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = front.name.clone().unwrap_or(folder);
    let name_like = !base.is_empty()
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
    if !name_like {
        return Err(format!(
            "`{base}` is not a skill name (letters, digits, `-`, `_`)"
        ));
    }
    let description = front
        .description
        .clone()
        .unwrap_or_else(|| first_paragraph(&body));
    Ok(Skill {
        name: format!("{prefix}{base}"),
        source,
        description,
        argument_hint: front.argument_hint,
        allowed_tools: front.allowed_tools,
        model: front.model.filter(|m| m != "inherit"),
        fork: front.context.as_deref() == Some("fork"),
        agent: front.agent,
        user_invocable: front.user_invocable.unwrap_or(true),
        model_invocable: !front.disable_model_invocation.unwrap_or(false),
        body,
        dir: dir.to_path_buf(),
    })
}

/// A skill without a `description`: its body's first paragraph, one line.
fn first_paragraph(body: &str) -> String {
    body.split("\n\n")
        .map(|p| {
            p.lines()
                .map(|l| l.trim().trim_start_matches('#').trim())
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .find(|p| !p.is_empty())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn names(skills: &Skills) -> Vec<(String, SkillSource)> {
        skills.iter().map(|s| (s.name.clone(), s.source)).collect()
    }

    #[test]
    fn user_project_and_nested_skills_and_a_bad_file_is_a_warning() {
        let project = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        let p = project.path();
        write(
            user.path(),
            "deploy/SKILL.md",
            "---\ndescription: user deploy\n---\nU\n",
        );
        write(
            p,
            ".claude/skills/deploy/SKILL.md",
            "---\ndescription: project deploy\n---\nP\n",
        );
        write(
            p,
            ".claude/skills/lint/SKILL.md",
            "# Lint\nRuns the linter.\n\nMore.\n",
        );
        write(
            p,
            ".claude/skills/broken/SKILL.md",
            "---\ndescription: [unclosed\n---\nx\n",
        );
        write(p, ".claude/skills/no-skill-file/README.md", "not a skill\n");
        write(
            p,
            "apps/web/.claude/skills/ship/SKILL.md",
            "---\ndescription: ship web\nuser-invocable: false\n---\n",
        );
        std::fs::create_dir_all(p.join("apps/web/src")).unwrap();
        let dirs = SkillDirs {
            project: p.to_path_buf(),
            cwd: p.join("apps/web/src"),
            user: vec![user.path().to_path_buf(), p.join("missing")],
            project_source: true,
            trusted: true,
            plugins: vec![],
        };
        let (skills, warnings) = load_skills(&dirs);
        assert_eq!(
            names(&skills),
            vec![
                ("apps/web:ship".to_owned(), SkillSource::Project),
                ("deploy".to_owned(), SkillSource::User),
                ("lint".to_owned(), SkillSource::Project),
            ]
        );
        assert_eq!(skills.get("deploy").unwrap().description, "user deploy");
        assert_eq!(
            skills.get("lint").unwrap().description,
            "Lint Runs the linter."
        );
        assert!(!skills.get("apps/web:ship").unwrap().user_invocable);
        let broken = p.join(".claude/skills/broken/SKILL.md");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(&format!("warning: {}: bad frontmatter: ", broken.display())),
            "{warnings:?}"
        );

        let (skills, warnings) = load_skills(&SkillDirs {
            project_source: true,
            trusted: false,
            ..dirs
        });
        assert_eq!(
            names(&skills),
            vec![("deploy".to_owned(), SkillSource::User)]
        );
        assert_eq!(
            warnings,
            vec![format!(
                "warning: {}: project skills not loaded until the project is trusted (tack trust)",
                p.join(".claude/skills").display()
            )]
        );
    }
}
