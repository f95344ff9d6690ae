//! The request head's bytes watched for a `Content-Length` header, which hyper drops when
//! `Transfer-Encoding` comes with it.

/// Watches the bytes of a request head go by for a `Content-Length` header, which hyper drops
/// when `Transfer-Encoding` comes with it (RFC 9112, 6.3); the app refuses such a request.
pub(super) struct HeadScan {
    active: bool,
    /// The first bytes of the current line, enough to recognise the header name.
    line: [u8; 16],
    line_len: usize,
    last: u8,
    seen_request_line: bool,
    content_length: bool,
}

const CONTENT_LENGTH: &[u8] = b"content-length:";

impl HeadScan {
    pub(super) fn armed() -> HeadScan {
        HeadScan {
            active: true,
            line: [0; 16],
            line_len: 0,
            last: b'\n',
            seen_request_line: false,
            content_length: false,
        }
    }

    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if !self.active {
                return;
            }
            if b != b'\n' {
                if self.line_len < self.line.len() {
                    self.line[self.line_len] = b;
                }
                self.line_len += 1;
                self.last = b;
                continue;
            }
            let len = self.line_len - usize::from(self.line_len > 0 && self.last == b'\r');
            if len == 0 {
                // Empty lines before the request line are skipped, as hyper does.
                if self.seen_request_line {
                    self.active = false;
                }
            } else if !self.seen_request_line {
                self.seen_request_line = true;
            } else if len >= CONTENT_LENGTH.len()
                && self.line[..CONTENT_LENGTH.len()].eq_ignore_ascii_case(CONTENT_LENGTH)
            {
                self.content_length = true;
            }
            self.line_len = 0;
            self.last = b'\n';
        }
    }

    pub(super) fn take_content_length(&mut self) -> bool {
        self.active = false;
        std::mem::take(&mut self.content_length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(chunks: &[&[u8]]) -> bool {
        let mut s = HeadScan::armed();
        for c in chunks {
            s.feed(c);
        }
        s.take_content_length()
    }

    #[test]
    fn the_head_scan_sees_content_length_in_the_head_only() {
        assert!(scan(&[b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"]));
        assert!(scan(&[
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\ncOnTeNt-LeNgTh: 3\r\n\r\n"
        ]));
        // Split anywhere, bare LF line ends, empty lines before the request line.
        assert!(scan(&[
            b"\r\n\r\nPOST / HTTP/1.1\nHost: x\ncontent-len",
            b"gth:3\n\n"
        ]));
        assert!(!scan(&[
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\nContent-Length: 3\r\n"
        ]));
        assert!(!scan(&[
            b"GET /content-length: HTTP/1.1\r\nX-Content-Length: 3\r\n\r\n"
        ]));
    }
}
