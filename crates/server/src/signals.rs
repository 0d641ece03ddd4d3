//! SIGTERM/SIGINT handling: the signals are blocked in every thread and one thread
//! waits for them with sigwait, so no handler runs in the middle of other work.

/// Blocks SIGTERM and SIGINT in the calling thread and every thread it spawns later.
pub fn block_termination_signals() {
    // SAFETY: sigset manipulation on a local, then pthread_sigmask on this thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Waits until SIGTERM or SIGINT arrives; returns its name.
pub fn wait_for_termination() -> &'static str {
    // SAFETY: sigwait on a set of blocked signals.
    let sig = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        let mut sig: libc::c_int = 0;
        libc::sigwait(&set, &mut sig);
        sig
    };
    if sig == libc::SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    }
}
