//! Paged KV-cache admission (formulas.md, "Simulation: scheduler"): the
//! cache is cut into blocks of a fixed number of tokens; a sequence holds
//! ceil(tokens / block) blocks, taken as its tokens are computed and given
//! back when it finishes or is preempted.

/// A replica's blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pool {
    /// Tokens per block.
    pub block: u64,
    /// Blocks in all.
    pub total: u64,
    /// Blocks free.
    pub free: u64,
}

impl Pool {
    /// A pool of `tokens` tokens' room in blocks of `block` tokens.
    pub fn new(tokens: u64, block: u64) -> Self {
        let total = tokens / block;
        Pool {
            block,
            total,
            free: total,
        }
    }

    /// Blocks a sequence of `tokens` tokens holds.
    pub fn blocks_for(&self, tokens: u64) -> u64 {
        tokens.div_ceil(self.block)
    }

    /// Blocks a sequence holding `held` blocks takes to hold `tokens`
    /// tokens (the common case, room in its last block, without a
    /// division).
    pub fn more_for(&self, held: u64, tokens: u64) -> u64 {
        if tokens <= held.saturating_mul(self.block) {
            0
        } else {
            self.blocks_for(tokens) - held
        }
    }

    /// Blocks in use.
    pub fn used(&self) -> u64 {
        self.total - self.free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_up() {
        let p = Pool::new(1000, 16);
        assert_eq!(p.total, 62);
        assert_eq!(p.blocks_for(1), 1);
        assert_eq!(p.blocks_for(16), 1);
        assert_eq!(p.blocks_for(17), 2);
        assert_eq!(p.more_for(1, 16), 0);
        assert_eq!(p.more_for(1, 17), 1);
        assert_eq!(p.more_for(0, 33), 3);
    }
}
