/// What a tree is drawn for: the width it must fit and the parallelism the run would have.
/// Parameters rather than read from the terminal, so the drawing stays pure and its snapshots
/// deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeLayout {
    /// Characters per line; dependency lists wrap under their project to fit.
    pub width: usize,
    /// `-j`: the header says how many run at once with it, not just how wide the widest wave is.
    pub parallelism: usize,
}

impl TreeLayout {
    /// Lines for a pipe or a file: wide enough for most plans on one line each.
    pub const DEFAULT_WIDTH: usize = 100;
    /// Below this the tree lines alone would fill the line; narrower terminals overflow instead.
    pub const MIN_WIDTH: usize = 40;

    pub fn new(width: usize, parallelism: usize) -> Self {
        Self { width: width.max(Self::MIN_WIDTH), parallelism: parallelism.max(1) }
    }
}
