//! `tokio::io` with the two extension traits whose methods take `bytes` buffers
//! (`read_buf`, `write_buf`, `write_all_buf`) bound to crates.io's `bytes`, the one every
//! other crate of the graph uses. tokio itself reaches this crate through the index's
//! sparse URL (Cargo.toml says why), and so does its own `bytes`: cargo counts that as
//! another crate, whose `BufMut` a crates.io `BytesMut` does not implement. Every other
//! method is tokio's own future; everything else here is tokio's `io`.

pub use real::io::*;

#[cfg(feature = "io-util")]
pub use ext::{AsyncReadExt, AsyncWriteExt};

#[cfg(feature = "io-util")]
mod ext {
    use super::{AsyncRead, AsyncWrite, Chain, ReadBuf, Take};
    use bytes::{Buf, BufMut};
    use std::future::Future;
    use std::io::{self, IoSlice};
    use std::pin::Pin;
    use std::task::{ready, Context, Poll};

    /// Declares (`decl`) or defines (`impl`) the numeric readers, each tokio's.
    macro_rules! readers {
        (decl $($name:ident -> $ty:ty),*) => {$(
            fn $name(&mut self) -> impl Future<Output = io::Result<$ty>> + '_
            where
                Self: Unpin;
        )*};
        (impl $($name:ident -> $ty:ty),*) => {$(
            fn $name(&mut self) -> impl Future<Output = io::Result<$ty>> + '_
            where
                Self: Unpin,
            {
                real::io::AsyncReadExt::$name(self)
            }
        )*};
    }

    /// Declares (`decl`) or defines (`impl`) the numeric writers, each tokio's.
    macro_rules! writers {
        (decl $($name:ident($ty:ty)),*) => {$(
            fn $name(&mut self, n: $ty) -> impl Future<Output = io::Result<()>> + '_
            where
                Self: Unpin;
        )*};
        (impl $($name:ident($ty:ty)),*) => {$(
            fn $name(&mut self, n: $ty) -> impl Future<Output = io::Result<()>> + '_
            where
                Self: Unpin,
            {
                real::io::AsyncWriteExt::$name(self, n)
            }
        )*};
    }

    /// The numeric readers of tokio's `AsyncReadExt`, in one list for both macros.
    macro_rules! with_readers {
        ($mac:ident $mode:ident) => {
            $mac!($mode
                read_u8 -> u8, read_i8 -> i8, read_u16 -> u16, read_i16 -> i16,
                read_u32 -> u32, read_i32 -> i32, read_u64 -> u64, read_i64 -> i64,
                read_u128 -> u128, read_i128 -> i128, read_f32 -> f32, read_f64 -> f64,
                read_u16_le -> u16, read_i16_le -> i16, read_u32_le -> u32,
                read_i32_le -> i32, read_u64_le -> u64, read_i64_le -> i64,
                read_u128_le -> u128, read_i128_le -> i128, read_f32_le -> f32,
                read_f64_le -> f64);
        };
    }

    /// The numeric writers of tokio's `AsyncWriteExt`, in one list for both macros.
    macro_rules! with_writers {
        ($mac:ident $mode:ident) => {
            $mac!($mode
                write_u8(u8), write_i8(i8), write_u16(u16), write_i16(i16),
                write_u32(u32), write_i32(i32), write_u64(u64), write_i64(i64),
                write_u128(u128), write_i128(i128), write_f32(f32), write_f64(f64),
                write_u16_le(u16), write_i16_le(i16), write_u32_le(u32),
                write_i32_le(i32), write_u64_le(u64), write_i64_le(i64),
                write_u128_le(u128), write_i128_le(i128), write_f32_le(f32),
                write_f64_le(f64));
        };
    }

    /// tokio's `AsyncReadExt`, `read_buf` taking crates.io's `BufMut`.
    pub trait AsyncReadExt: AsyncRead {
        fn chain<R: AsyncRead>(self, next: R) -> Chain<Self, R>
        where
            Self: Sized;

        fn read<'a>(
            &'a mut self,
            buf: &'a mut [u8],
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin;

        fn read_buf<'a, B>(
            &'a mut self,
            buf: &'a mut B,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
            B: BufMut + ?Sized;

        fn read_exact<'a>(
            &'a mut self,
            buf: &'a mut [u8],
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin;

        with_readers!(readers decl);

        fn read_to_end<'a>(
            &'a mut self,
            buf: &'a mut Vec<u8>,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin;

        fn read_to_string<'a>(
            &'a mut self,
            dst: &'a mut String,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin;

        fn take(self, limit: u64) -> Take<Self>
        where
            Self: Sized;
    }

    impl<R: AsyncRead + ?Sized> AsyncReadExt for R {
        fn chain<N: AsyncRead>(self, next: N) -> Chain<Self, N>
        where
            Self: Sized,
        {
            real::io::AsyncReadExt::chain(self, next)
        }

        fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncReadExt::read(self, buf)
        }

        fn read_buf<'a, B>(
            &'a mut self,
            buf: &'a mut B,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
            B: BufMut + ?Sized,
        {
            std::future::poll_fn(move |cx| poll_read_buf(Pin::new(&mut *self), cx, buf))
        }

        fn read_exact<'a>(
            &'a mut self,
            buf: &'a mut [u8],
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncReadExt::read_exact(self, buf)
        }

        with_readers!(readers impl);

        fn read_to_end<'a>(
            &'a mut self,
            buf: &'a mut Vec<u8>,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncReadExt::read_to_end(self, buf)
        }

        fn read_to_string<'a>(
            &'a mut self,
            dst: &'a mut String,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncReadExt::read_to_string(self, dst)
        }

        fn take(self, limit: u64) -> Take<Self>
        where
            Self: Sized,
        {
            real::io::AsyncReadExt::take(self, limit)
        }
    }

    /// One read into `buf`'s spare capacity, as tokio's `read_buf` does it.
    fn poll_read_buf<R: AsyncRead + ?Sized, B: BufMut + ?Sized>(
        reader: Pin<&mut R>,
        cx: &mut Context<'_>,
        buf: &mut B,
    ) -> Poll<io::Result<usize>> {
        if !buf.has_remaining_mut() {
            return Poll::Ready(Ok(0));
        }
        let read = {
            // SAFETY: the reader only writes initialised bytes into a `ReadBuf` (its
            // contract), never reads the uninitialised ones.
            let spare = unsafe { buf.chunk_mut().as_uninit_slice_mut() };
            let mut read_buf = ReadBuf::uninit(spare);
            let start = read_buf.filled().as_ptr();
            ready!(reader.poll_read(cx, &mut read_buf))?;
            // A reader that swapped the buffer out would make `advance_mut` lie.
            assert_eq!(
                start,
                read_buf.filled().as_ptr(),
                "the reader swapped the ReadBuf"
            );
            read_buf.filled().len()
        };
        // SAFETY: the reader initialised `read` bytes of the spare capacity.
        unsafe { buf.advance_mut(read) };
        Poll::Ready(Ok(read))
    }

    /// tokio's `AsyncWriteExt`, `write_buf` and `write_all_buf` taking crates.io's `Buf`.
    pub trait AsyncWriteExt: AsyncWrite {
        fn write<'a>(&'a mut self, src: &'a [u8]) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin;

        fn write_vectored<'a, 'b>(
            &'a mut self,
            bufs: &'a [IoSlice<'b>],
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin;

        fn write_buf<'a, B>(
            &'a mut self,
            src: &'a mut B,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Sized + Unpin,
            B: Buf;

        fn write_all_buf<'a, B>(
            &'a mut self,
            src: &'a mut B,
        ) -> impl Future<Output = io::Result<()>> + 'a
        where
            Self: Sized + Unpin,
            B: Buf;

        fn write_all<'a>(&'a mut self, src: &'a [u8]) -> impl Future<Output = io::Result<()>> + 'a
        where
            Self: Unpin;

        with_writers!(writers decl);

        fn flush(&mut self) -> impl Future<Output = io::Result<()>> + '_
        where
            Self: Unpin;

        fn shutdown(&mut self) -> impl Future<Output = io::Result<()>> + '_
        where
            Self: Unpin;
    }

    impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {
        fn write<'a>(&'a mut self, src: &'a [u8]) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncWriteExt::write(self, src)
        }

        fn write_vectored<'a, 'b>(
            &'a mut self,
            bufs: &'a [IoSlice<'b>],
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncWriteExt::write_vectored(self, bufs)
        }

        fn write_buf<'a, B>(
            &'a mut self,
            src: &'a mut B,
        ) -> impl Future<Output = io::Result<usize>> + 'a
        where
            Self: Sized + Unpin,
            B: Buf,
        {
            std::future::poll_fn(move |cx| {
                if !src.has_remaining() {
                    return Poll::Ready(Ok(0));
                }
                let written = ready!(Pin::new(&mut *self).poll_write(cx, src.chunk()))?;
                src.advance(written);
                Poll::Ready(Ok(written))
            })
        }

        fn write_all_buf<'a, B>(
            &'a mut self,
            src: &'a mut B,
        ) -> impl Future<Output = io::Result<()>> + 'a
        where
            Self: Sized + Unpin,
            B: Buf,
        {
            std::future::poll_fn(move |cx| {
                while src.has_remaining() {
                    let written = ready!(Pin::new(&mut *self).poll_write(cx, src.chunk()))?;
                    if written == 0 {
                        return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                    }
                    src.advance(written);
                }
                Poll::Ready(Ok(()))
            })
        }

        fn write_all<'a>(&'a mut self, src: &'a [u8]) -> impl Future<Output = io::Result<()>> + 'a
        where
            Self: Unpin,
        {
            real::io::AsyncWriteExt::write_all(self, src)
        }

        with_writers!(writers impl);

        fn flush(&mut self) -> impl Future<Output = io::Result<()>> + '_
        where
            Self: Unpin,
        {
            real::io::AsyncWriteExt::flush(self)
        }

        fn shutdown(&mut self) -> impl Future<Output = io::Result<()>> + '_
        where
            Self: Unpin,
        {
            real::io::AsyncWriteExt::shutdown(self)
        }
    }
}
