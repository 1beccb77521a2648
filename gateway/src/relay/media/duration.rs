//! How long an uploaded audio file plays, read from its own headers: WAV (the `fmt ` byte rate
//! and the `data` chunk size) and MP3 (every MPEG audio frame header walked, so constant and
//! variable bit rates are both exact). Other formats get [`estimate_seconds`] from the size.

/// Bytes per second assumed for a file whose duration cannot be read: 128 kbit/s, the usual
/// MP3/AAC/Opus upload rate (the reference gives no size-based estimate; ours is documented).
pub const FALLBACK_BYTES_PER_SECOND: f64 = 16_000.0;

/// The duration of `file` in seconds: read from its headers when it is WAV or MP3, otherwise
/// `len / FALLBACK_BYTES_PER_SECOND`. The boolean is `true` when it was read.
pub fn seconds(file: &[u8]) -> (f64, bool) {
    match wav_seconds(file).or_else(|| mp3_seconds(file)) {
        Some(s) => (s, true),
        None => (estimate_seconds(file.len()), false),
    }
}

/// The size-based estimate.
pub fn estimate_seconds(len: usize) -> f64 {
    len as f64 / FALLBACK_BYTES_PER_SECOND
}

fn u16_le(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// RIFF/WAVE: `data` bytes ÷ the `fmt ` chunk's byte rate. A `data` size larger than the file
/// (a streamed WAV with a placeholder size) counts the bytes present.
pub fn wav_seconds(b: &[u8]) -> Option<f64> {
    if b.get(0..4)? != b"RIFF" || b.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut at = 12;
    let mut byte_rate = None;
    while at + 8 <= b.len() {
        let id = &b[at..at + 4];
        let size = u32_le(b, at + 4)? as usize;
        let body = at + 8;
        if id == b"fmt " {
            let rate = u32_le(b, body + 8)?;
            let _format = u16_le(b, body)?;
            byte_rate = Some(rate).filter(|r| *r > 0);
        } else if id == b"data" {
            let present = b.len() - body;
            return Some(size.min(present) as f64 / f64::from(byte_rate?));
        }
        // Chunks are padded to an even size.
        at = body.checked_add(size)?.checked_add(size & 1)?;
    }
    None
}

/// Facts of one MPEG audio frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    len: usize,
    samples: u32,
    sample_rate: u32,
}

/// Layer III bit rates in kbit/s by index: MPEG-1, then MPEG-2 and 2.5.
const BITRATES_V1: [u32; 15] = [
    0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
];
const BITRATES_V2: [u32; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];

/// A Layer III frame header at the start of `h` (free-format and reserved values refused).
fn frame(h: &[u8]) -> Option<Frame> {
    let h = h.get(0..4)?;
    if h[0] != 0xFF || h[1] & 0xE0 != 0xE0 {
        return None;
    }
    let version = (h[1] >> 3) & 0b11; // 0: 2.5, 2: 2, 3: 1
    let layer = (h[1] >> 1) & 0b11; // 1: Layer III
    if version == 1 || layer != 1 {
        return None;
    }
    let bitrate_index = usize::from(h[2] >> 4);
    let rate_index = usize::from((h[2] >> 2) & 0b11);
    let padding = usize::from((h[2] >> 1) & 1);
    if bitrate_index == 0 || bitrate_index == 15 || rate_index == 3 {
        return None;
    }
    let base = [44_100, 48_000, 32_000][rate_index];
    let (sample_rate, kbps, samples, factor) = match version {
        3 => (base, BITRATES_V1[bitrate_index], 1152, 144),
        2 => (base / 2, BITRATES_V2[bitrate_index], 576, 72),
        _ => (base / 4, BITRATES_V2[bitrate_index], 576, 72),
    };
    let len = (factor * kbps as usize * 1000) / sample_rate as usize + padding;
    Some(Frame {
        len,
        samples,
        sample_rate,
    })
}

/// The size of an ID3v2 tag at the start of `b` (0 when there is none).
fn id3v2_len(b: &[u8]) -> usize {
    if b.len() < 10 || &b[0..3] != b"ID3" {
        return 0;
    }
    let size = b[6..10]
        .iter()
        .fold(0usize, |acc, x| (acc << 7) | usize::from(x & 0x7F));
    let footer = if b[5] & 0x10 != 0 { 10 } else { 0 };
    10 + size + footer
}

/// MP3: the samples of every frame summed (each frame's own sample rate), after an ID3v2 tag;
/// a byte that does not start a valid frame is skipped, as decoders resynchronise. At least
/// two consecutive frames must chain for the file to count as MP3.
pub fn mp3_seconds(b: &[u8]) -> Option<f64> {
    let mut at = id3v2_len(b);
    let mut seconds = 0.0;
    let mut frames = 0u64;
    let mut chained = false;
    while at + 4 <= b.len() {
        if b[at..].starts_with(b"TAG") && b.len() - at == 128 {
            break;
        }
        match frame(&b[at..]) {
            Some(f) if f.len >= 4 => {
                let next = at + f.len;
                // A lone sync word inside other data is not a frame: the next one must follow.
                let follows = next >= b.len() || frame(&b[next..]).is_some();
                if follows {
                    chained |= next < b.len();
                    seconds += f64::from(f.samples) / f64::from(f.sample_rate);
                    frames += 1;
                    at = next;
                    continue;
                }
                at += 1;
            }
            _ => at += 1,
        }
    }
    (frames >= 2 && chained).then_some(seconds)
}

#[cfg(test)]
pub mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A PCM WAV of `seconds` at `rate` Hz, 16-bit mono (what the tests upload).
    pub fn wav(rate: u32, seconds: u32) -> Vec<u8> {
        let data = rate * 2 * seconds;
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&(36 + data).to_le_bytes());
        b.extend_from_slice(b"WAVEfmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&rate.to_le_bytes());
        b.extend_from_slice(&(rate * 2).to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&data.to_le_bytes());
        b.extend((0..data).map(|i| (i % 251) as u8));
        b
    }

    /// `frames` MPEG-1 Layer III frames at 128 kbit/s, 44.1 kHz, behind an ID3v2 tag.
    pub fn mp3(frames: usize) -> Vec<u8> {
        let mut b = b"ID3\x04\x00\x00\x00\x00\x00\x0a".to_vec();
        b.extend_from_slice(&[0u8; 10]);
        for i in 0..frames {
            // 128 kbit/s (index 9), 44.1 kHz, padding on odd frames.
            let pad = u8::from(i % 2 == 1);
            let header = [0xFF, 0xFB, 0x90 | (pad << 1), 0x64];
            let len = 144 * 128_000 / 44_100 + usize::from(pad);
            b.extend_from_slice(&header);
            b.extend(std::iter::repeat_n(0x55u8, len - 4));
        }
        b
    }

    #[test]
    fn wav_duration_comes_from_the_byte_rate() {
        let w = wav(16_000, 3);
        assert_eq!(wav_seconds(&w), Some(3.0));
        assert_eq!(seconds(&w), (3.0, true));
        // A streamed WAV whose data size is a placeholder counts the bytes present.
        let mut streamed = w.clone();
        streamed[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(wav_seconds(&streamed), Some(3.0));
        assert_eq!(wav_seconds(&w[..20]), None);
        assert_eq!(wav_seconds(b"RIFF\0\0\0\0WAVE"), None);
    }

    #[test]
    fn mp3_duration_sums_the_frames() {
        let m = mp3(100);
        let expected = 100.0 * 1152.0 / 44_100.0;
        assert!((mp3_seconds(&m).unwrap() - expected).abs() < 1e-9);
        // Junk between frames is skipped.
        let mut junk = m.clone();
        junk.splice(500..500, [0xFFu8, 0xFB, 0x00, 0x01, 7, 7]);
        assert!(mp3_seconds(&junk).is_some());
        assert_eq!(mp3_seconds(&[0u8; 4000]), None);
        assert_eq!(mp3_seconds(&m[..100]), None);
    }

    #[test]
    fn other_formats_are_estimated_from_the_size() {
        let (s, read) = seconds(&vec![1u8; 32_000]);
        assert!(!read);
        assert_eq!(s, 2.0);
    }
}
