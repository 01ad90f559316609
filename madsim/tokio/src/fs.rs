//! `tokio::fs` that refuses inside a simulation: tokio runs every file operation on its
//! blocking pool, real threads whose completions would reach the simulation's single
//! thread in an order no seed decides, and the files themselves are outside the plan.
//! Inside a run every function, constructor and operation here fails with an
//! [`io::ErrorKind::Unsupported`] error naming the call and the simulation
//! ([`crate::simulation::refuse`]); outside one each is tokio's own. `ReadDir` and
//! `DirEntry` are tokio's: only [`read_dir`], which refuses, makes one.

use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
use crate::simulation::refuse;
use std::fs::{Metadata, Permissions};
use std::io::{self, SeekFrom};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

pub use real::fs::*;

/// The free functions: each refuses inside a simulation, then is tokio's.
macro_rules! refusing {
    ($($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        $(#[$meta])*
        pub async fn $name($($arg: $ty),*) -> io::Result<$out> {
            refuse(concat!("tokio::fs::", stringify!($name)))?;
            real::fs::$name($($arg),*).await
        }
    )*};
}

refusing! {
    fn canonicalize(path: impl AsRef<Path>) -> PathBuf;
    fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> u64;
    fn create_dir(path: impl AsRef<Path>) -> ();
    fn create_dir_all(path: impl AsRef<Path>) -> ();
    fn hard_link(original: impl AsRef<Path>, link: impl AsRef<Path>) -> ();
    fn metadata(path: impl AsRef<Path>) -> Metadata;
    fn read(path: impl AsRef<Path>) -> Vec<u8>;
    fn read_dir(path: impl AsRef<Path>) -> ReadDir;
    fn read_link(path: impl AsRef<Path>) -> PathBuf;
    fn read_to_string(path: impl AsRef<Path>) -> String;
    fn remove_dir(path: impl AsRef<Path>) -> ();
    fn remove_dir_all(path: impl AsRef<Path>) -> ();
    fn remove_file(path: impl AsRef<Path>) -> ();
    fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> ();
    fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> ();
    fn symlink_metadata(path: impl AsRef<Path>) -> Metadata;
    fn try_exists(path: impl AsRef<Path>) -> bool;
    fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> ();
    #[cfg(unix)]
    fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> ();
}

/// tokio's file, every operation of which refuses inside a simulation.
#[derive(Debug)]
pub struct File {
    inner: real::fs::File,
}

impl File {
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        refuse("tokio::fs::File::open")?;
        real::fs::File::open(path).await.map(File::from)
    }

    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        refuse("tokio::fs::File::create")?;
        real::fs::File::create(path).await.map(File::from)
    }

    /// tokio 1.38's `create_new` (fs-err 3.1 and later call it).
    pub async fn create_new<P: AsRef<Path>>(path: P) -> io::Result<File> {
        refuse("tokio::fs::File::create_new")?;
        real::fs::File::create_new(path).await.map(File::from)
    }

    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    pub fn from_std(std: std::fs::File) -> File {
        File::from(real::fs::File::from_std(std))
    }

    pub async fn sync_all(&self) -> io::Result<()> {
        refuse("tokio::fs::File::sync_all")?;
        self.inner.sync_all().await
    }

    pub async fn sync_data(&self) -> io::Result<()> {
        refuse("tokio::fs::File::sync_data")?;
        self.inner.sync_data().await
    }

    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        refuse("tokio::fs::File::set_len")?;
        self.inner.set_len(size).await
    }

    pub async fn metadata(&self) -> io::Result<Metadata> {
        refuse("tokio::fs::File::metadata")?;
        self.inner.metadata().await
    }

    pub async fn try_clone(&self) -> io::Result<File> {
        refuse("tokio::fs::File::try_clone")?;
        self.inner.try_clone().await.map(File::from)
    }

    /// The std file. It waits for an operation in flight, which only tokio's pool can
    /// have started (none starts inside a simulation).
    pub async fn into_std(self) -> std::fs::File {
        self.inner.into_std().await
    }

    pub fn try_into_std(self) -> Result<std::fs::File, Self> {
        self.inner.try_into_std().map_err(File::from)
    }

    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        refuse("tokio::fs::File::set_permissions")?;
        self.inner.set_permissions(perm).await
    }

    pub async fn set_times(&self, times: FileTimes) -> io::Result<()> {
        refuse("tokio::fs::File::set_times")?;
        self.inner.set_times(times).await
    }

    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        refuse("tokio::fs::File::set_modified")?;
        self.inner.set_modified(time).await
    }

    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        self.inner.set_max_buf_size(max_buf_size)
    }

    pub fn max_buf_size(&self) -> usize {
        self.inner.max_buf_size()
    }
}

impl From<real::fs::File> for File {
    fn from(inner: real::fs::File) -> File {
        File { inner }
    }
}

impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> File {
        File::from_std(std)
    }
}

/// A poll's refusal inside a simulation, as a ready error.
fn refused<T>(what: &str) -> Option<Poll<io::Result<T>>> {
    refuse(what).err().map(|error| Poll::Ready(Err(error)))
}

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(refusal) = refused("reading a tokio::fs::File") {
            return refusal;
        }
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        refuse("seeking a tokio::fs::File")?;
        Pin::new(&mut self.get_mut().inner).start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        if let Some(refusal) = refused("seeking a tokio::fs::File") {
            return refusal;
        }
        Pin::new(&mut self.get_mut().inner).poll_complete(cx)
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(refusal) = refused("writing a tokio::fs::File") {
            return refusal;
        }
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(refusal) = refused("writing a tokio::fs::File") {
            return refusal;
        }
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(refusal) = refused("flushing a tokio::fs::File") {
            return refusal;
        }
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(refusal) = refused("shutting down a tokio::fs::File") {
            return refusal;
        }
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(unix)]
impl From<std::os::fd::OwnedFd> for File {
    fn from(fd: std::os::fd::OwnedFd) -> File {
        File::from_std(std::fs::File::from(fd))
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for File {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.inner.as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for File {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::FromRawFd for File {
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> File {
        // SAFETY: the caller's promise, passed on unchanged.
        File::from_std(unsafe { std::fs::File::from_raw_fd(fd) })
    }
}

/// tokio's options, opening this module's [`File`].
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    inner: real::fs::OpenOptions,
}

impl OpenOptions {
    pub fn new() -> OpenOptions {
        OpenOptions {
            inner: real::fs::OpenOptions::new(),
        }
    }

    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.inner.read(read);
        self
    }

    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.inner.write(write);
        self
    }

    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.inner.append(append);
        self
    }

    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.inner.truncate(truncate);
        self
    }

    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.inner.create(create);
        self
    }

    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.inner.create_new(create_new);
        self
    }

    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.inner.mode(mode);
        self
    }

    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.inner.custom_flags(flags);
        self
    }

    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        refuse("tokio::fs::OpenOptions::open")?;
        self.inner.open(path).await.map(File::from)
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions {
            inner: real::fs::OpenOptions::from(options),
        }
    }
}

/// tokio's directory builder, refusing to create inside a simulation.
#[derive(Debug, Default)]
pub struct DirBuilder {
    inner: real::fs::DirBuilder,
}

impl DirBuilder {
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.inner.recursive(recursive);
        self
    }

    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.inner.mode(mode);
        self
    }

    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        refuse("tokio::fs::DirBuilder::create")?;
        self.inner.create(path).await
    }
}
