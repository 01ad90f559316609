//! Virtual time as explanations print it: run-relative seconds to the millisecond
//! (`8.923 s`, `8.923..8.927 s`), the form of the timelines, instead of raw microseconds.

/// `8.923 s`: microseconds since world start, as seconds.
pub(crate) fn at(us: u64) -> String {
    format!("{} s", seconds(us))
}

/// `8.923..8.927 s`: an operation's invocation and completion.
pub(crate) fn span(from_us: u64, to_us: u64) -> String {
    format!("{}..{} s", seconds(from_us), seconds(to_us))
}

fn seconds(us: u64) -> String {
    format!("{}.{:03}", us / 1_000_000, us % 1_000_000 / 1_000)
}

#[cfg(test)]
mod tests {
    #[test]
    fn seconds_to_the_millisecond() {
        assert_eq!(super::at(8_923_456), "8.923 s");
        assert_eq!(super::at(0), "0.000 s");
        assert_eq!(super::span(8_923_000, 12_027_000), "8.923..12.027 s");
    }
}
