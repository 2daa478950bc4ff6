//! Drawings of a plan for `runner show`. Pure: they return text.

mod dot_render;
mod json_render;
mod mermaid_render;
mod phase_waves;
#[cfg(test)]
mod snapshot_tests;
mod timeline_svg;
mod tree_layout;
mod tree_render;

pub use dot_render::dot;
pub use json_render::json;
pub use mermaid_render::mermaid;
pub use phase_waves::PhaseWaves;
pub use timeline_svg::{
    colour_of, timeline_mermaid, timeline_svg, ATTEMPT_COLOUR, CANCELLED_COLOUR, CRITICAL_COLOUR, FAILED_COLOUR,
    GATE_COLOUR, HOOK_COLOUR, RETRY_WAIT_COLOUR, WAIT_COLOUR,
};
pub use tree_layout::TreeLayout;
pub use tree_render::{duration_text, tree, why_it_waits};
