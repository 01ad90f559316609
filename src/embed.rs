//! A deterministic local embedder for long-term memories: hashed word and character
//! trigram features in a small signed vector, L2-normalised. No model download, the same
//! vector on every machine, and similar texts land close (cosine) — enough to exercise a
//! store's recall path the way a real embedding model would.

/// Dimensions of an embedding.
pub const DIMENSIONS: usize = 64;

/// The embedding of `text` (model 1).
pub fn embed(text: &str) -> [f32; DIMENSIONS] {
    embed_with_model(text, 1)
}

/// The embedding of `text` by embedding model `model`: 1 is the stores' model; another
/// number is a different model of the same dimensions (its features land elsewhere), as
/// when a team moves to a new embedding model.
pub fn embed_with_model(text: &str, model: u32) -> [f32; DIMENSIONS] {
    let mut vector = [0f32; DIMENSIONS];
    let lower = text.to_lowercase();
    for word in lower.split_whitespace() {
        add_feature(&mut vector, word.as_bytes(), 1.0, model);
    }
    let chars: Vec<char> = lower.chars().collect();
    for trigram in chars.windows(3) {
        let feature: String = trigram.iter().collect();
        add_feature(&mut vector, feature.as_bytes(), 0.5, model);
    }
    normalise(&mut vector);
    vector
}

fn add_feature(vector: &mut [f32; DIMENSIONS], feature: &[u8], weight: f32, model: u32) {
    let hash = match model {
        1 => crate::trace::fnv1a(feature),
        other => {
            crate::trace::fnv1a(feature) ^ u64::from(other).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        }
    };
    let slot = (hash % DIMENSIONS as u64) as usize;
    let sign = if (hash >> 63) == 1 { -1.0 } else { 1.0 };
    vector[slot] += sign * weight;
}

fn normalise(vector: &mut [f32; DIMENSIONS]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity of two normalised embeddings, in [-1, 1].
pub fn cosine(a: &[f32; DIMENSIONS], b: &[f32; DIMENSIONS]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one_and_related_texts_beat_unrelated() {
        let likes = embed("the user likes green tea");
        assert!((cosine(&likes, &embed("the user likes green tea")) - 1.0).abs() < 1e-5);
        let related = cosine(&likes, &embed("user likes tea"));
        let unrelated = cosine(&likes, &embed("quarterly tax filing deadline"));
        assert!(related > unrelated, "{related} vs {unrelated}");
        assert_eq!(embed(""), [0.0; DIMENSIONS]);
    }
}
