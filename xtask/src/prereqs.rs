//! Prerequisites: the Vulkan loader, a Vulkan driver, the Khronos validation layer, and the tools
//! that shaderc's from-source build needs (cmake, a C++ compiler, python3).
//!
//! On Debian as root, missing ones are installed with apt-get; otherwise the install command is
//! printed and xtask exits with code 2.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{progress, progress_stdio, run_checked, Error, Result};

/// (what is needed, its Debian package, a finder returning a short description of what it found)
type Prereq = (&'static str, &'static str, fn() -> Option<String>);

#[rustfmt::skip]
const PREREQS: &[Prereq] = &[
    ("Vulkan loader (libvulkan.so.1)", "libvulkan1", loader),
    ("Vulkan driver (ICD)", "mesa-vulkan-drivers", driver),
    ("Khronos validation layer", "vulkan-validationlayers", layer),
    ("cmake", "cmake", || on_path(&["cmake"])),
    ("C++ compiler", "g++", || on_path(&["c++", "g++", "clang++"])),
    ("python3", "python3", || on_path(&["python3"])),
];

const LIB_DIRS: &[&str] = &["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/local/lib"];
const ICD_DIRS: &[&str] = &["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"];
const LAYER_DIRS: &[&str] =
    &["/usr/share/vulkan/explicit_layer.d", "/etc/vulkan/explicit_layer.d", "/usr/local/share/vulkan/explicit_layer.d"];

/// Checks the prerequisites, installing missing ones on Debian when root.
pub fn ensure() -> Result {
    let missing = check();
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = missing.iter().map(|p| p.0).collect();
    let pkgs: Vec<&str> = missing.iter().map(|p| p.1).collect();
    let (names, pkgs) = (names.join(", "), pkgs.join(" "));
    if !Path::new("/etc/debian_version").exists() {
        let how = format!("install them with your package manager (Debian packages: {pkgs})");
        return Err(Error::usage(format!("missing: {names}\n{how}")));
    }
    if !is_root() {
        let how = format!("install them with:\n    sudo apt-get install -y {pkgs}");
        return Err(Error::usage(format!("missing: {names}\n{how}")));
    }
    progress(format!("missing: {names}; installing {pkgs}"));
    let mut install = Command::new("apt-get");
    install.env("DEBIAN_FRONTEND", "noninteractive");
    install.args(["install", "-y", "--no-install-recommends"]).args(pkgs.split(' '));
    run_checked(Command::new("apt-get").arg("update").stdout(progress_stdio()), "apt-get update")
        .and_then(|()| run_checked(install.stdout(progress_stdio()), "apt-get install"))
        .map_err(|e| Error::usage(e.msg))?;
    let still: Vec<&str> = check().iter().map(|p| p.0).collect();
    if still.is_empty() {
        return Ok(());
    }
    Err(Error::usage(format!("still missing after apt-get: {}", still.join(", "))))
}

/// Runs every check, prints the `ok` line when nothing is missing, returns what is missing.
fn check() -> Vec<&'static Prereq> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for p in PREREQS {
        match (p.2)() {
            Some(what) => found.push(what),
            None => missing.push(p),
        }
    }
    if missing.is_empty() {
        progress(format!("prerequisites: ok ({})", found.join(", ")));
    }
    missing
}

fn loader() -> Option<String> {
    const LIB: &str = "libvulkan.so.1";
    let in_cache = ["ldconfig", "/sbin/ldconfig"]
        .iter()
        .find_map(|ldconfig| Command::new(ldconfig).arg("-p").output().ok())
        .is_some_and(|out| String::from_utf8_lossy(&out.stdout).contains(LIB));
    let found = in_cache || LIB_DIRS.iter().any(|dir| Path::new(dir).join(LIB).exists());
    found.then(|| LIB.to_string())
}

fn driver() -> Option<String> {
    for var in ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"] {
        if env::var_os(var).is_some_and(|v| !v.is_empty()) {
            return Some(format!("driver from ${var}"));
        }
    }
    let mut icds: Vec<String> = ICD_DIRS
        .iter()
        .filter_map(|dir| fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    icds.sort();
    (!icds.is_empty()).then(|| format!("driver: {}", icds.join(" ")))
}

fn layer() -> Option<String> {
    const MANIFEST: &str = "VkLayer_khronos_validation.json";
    let from_env: Vec<PathBuf> = ["VK_LAYER_PATH", "VK_ADD_LAYER_PATH"]
        .iter()
        .filter_map(env::var_os)
        .flat_map(|paths| env::split_paths(&paths).collect::<Vec<_>>())
        .collect();
    let mut dirs = LAYER_DIRS.iter().map(PathBuf::from).chain(from_env);
    dirs.any(|dir| dir.join(MANIFEST).is_file()).then(|| "validation layer".to_string())
}

/// The first of `names` found on PATH.
fn on_path(names: &[&str]) -> Option<String> {
    names.iter().find(|name| find_on_path(name).is_some()).map(|name| name.to_string())
}

/// The full path of executable `name` on PATH.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path).map(|dir| dir.join(name)).find(|file| is_executable(file))
}

/// Whether `file` is a file that may be executed.
#[cfg(unix)]
pub fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
pub fn is_executable(file: &Path) -> bool {
    file.is_file()
}

/// Whether we run as root, from `id -u` (avoids a libc dependency).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "0")
}
