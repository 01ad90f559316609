//! Unit tests of the scripting commands: what the differential test cannot show.
