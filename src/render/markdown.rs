//! Markdown: the same tables as the terminal renderer, as GitHub-flavoured
//! Markdown, for pasting into docs and issues.

use super::table::{results_grid, rows_text};
use super::{Renderer, title};
use crate::report::Report;
use comfy_table::presets::ASCII_MARKDOWN;

/// Renders Markdown.
pub struct Markdown;

impl Renderer for Markdown {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = format!("### {}\n\n", title(report));
        if let Some(g) = results_grid(report, ASCII_MARKDOWN, true) {
            out.push_str(&g.to_string());
            out.push_str("\n\n");
        }
        if let Some(g) = rows_text(report, ASCII_MARKDOWN, true) {
            out.push_str(&g);
            out.push_str("\n\n");
        }
        for n in &report.notes {
            out.push_str(&format!("- {n}\n"));
        }
        let h = super::table::hidden(report);
        if h > 0 {
            out.push_str(&format!(
                "\n({h} more results: `--all` shows every one, `--explain` their derivations)\n"
            ));
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot() {
        let r = super::super::table::tests::sample();
        insta::assert_snapshot!(String::from_utf8(Markdown.render(&r)).unwrap());
    }
}
