"""Video work through PyAV (its wheel bundles FFmpeg with libx264, so no system FFmpeg is needed).

Every video an annotator receives is made anew in one served profile (``ServedProfile``): the same size, frame
rate, encoder and settings for every generated video, gold video and GT strip, so nothing in the served files but
what they show tells one team's videos from another's (docs/design/wmeval.md, "Canonical media"). ``transcode``
re-encodes a team's video into the profile: scaled to fit with its aspect kept and padded (never stretched),
brought to the profile's rate by showing frames longer (never dropping one), and saves its last frame as
served; ``compose_strip`` lays three camera views side by side at one height, the layout of the generated
videos, in the same profile. ``probe`` reads what a file holds.

``transcode_job`` wraps the first for ``podium.core.execution.executor``: the job carries its paths and profile,
the result says whether the video plays, and a file FFmpeg cannot decode is a result, not an exception (an
unplayable video is data: it scores 0, visibly).
"""

from __future__ import annotations

import math
from contextlib import ExitStack
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from podium.tracks.wmeval.kinds import IssueKind

DEFAULT_FPS = 24  # the baseline's generated videos are written at 24 fps
MAX_FPS = 120  # a container claiming more is lying about its rate; use the default instead
SERVED_MIN_FPS = 30  # the served rate at least: the real GT's rate, and above every rate the baseline writes
CRF = 20  # 46 dB PSNR at 672x224 (44.9 at CRF 23) for the same CPU: no second generation of visible loss
GOP_SECONDS = 2  # a keyframe every 2 s exactly, never at a scene cut: the key frames say nothing about content


@dataclass(frozen=True, slots=True)
class ServedProfile:
    """What every served video of a season is: one size, one frame rate, one encoder with fixed settings.

    The size is ``4 * height`` by ``height``: three 4:3 camera views side by side (the GT strip) fill it, and the
    baseline's 3:1 generated videos fit it at full height. Nothing of it comes from a team's files.
    """

    width: int
    height: int
    fps: int

    @classmethod
    def for_height(cls, height: int, fps: int) -> ServedProfile:
        """The profile of strips ``height`` pixels high, served at ``fps``."""
        even = _even(height)
        return cls(4 * even, even, fps)

    def x264_options(self) -> dict[str, str]:
        """libx264's settings: fixed, so every video of the profile has the same stream headers.

        One thread always: the ingest's pool already fills every core, and frame threads would make the bytes
        depend on the machine.
        """
        gop = GOP_SECONDS * self.fps
        return {"preset": "ultrafast", "crf": str(CRF), "threads": "1",
                "x264-params": f"keyint={gop}:min-keyint={gop}:scenecut=0"}  # fmt: skip

    def box(self, width: int, height: int) -> tuple[int, int, int, int]:
        """Where a ``width`` x ``height`` picture lies in the profile's frame: x, y, w, h.

        The largest size that fits with the aspect kept, even sides, centred on whole chroma samples.
        """
        scale = min(self.width / width, self.height / height)
        w, h = min(self.width, _even(round(width * scale))), min(self.height, _even(round(height * scale)))
        return (self.width - w) // 4 * 2, (self.height - h) // 4 * 2, w, h

    def fits(self, fps: float) -> bool:
        """Whether a video at ``fps`` reaches the profile's rate by repeating frames only (1 ‰ for 29.97)."""
        return fps <= self.fps * 1.001


class MediaError(Exception):
    """A video FFmpeg cannot open or decode (reported as an unplayable video, never raised to the user)."""


@dataclass(frozen=True, slots=True)
class Probe:
    """What a video file holds, as FFmpeg reads it."""

    codec: str
    width: int
    height: int
    fps: float
    frames: int
    duration_s: float
    box: tuple[int, int, int, int] | None = None  # a served file: where the picture lies in it (x, y, w, h)


@dataclass(frozen=True, slots=True)
class TranscodeJob:
    """One video to serve: its original, where the served copy and its last frame go, and in which profile."""

    source: Path
    target: Path
    last_frame: Path
    profile: ServedProfile


@dataclass(frozen=True, slots=True)
class TranscodeResult:
    """The probe of the original and of the copy, or why the video cannot be played."""

    playable: bool
    reason: str
    original: Probe | None = None
    output: Probe | None = None
    method: str = ""  # how the served copy was made: transcoded or composed ("" when unplayable)
    issue: IssueKind = IssueKind.UNDECODABLE  # the kind of issue an unplayable video is reported as


def pyav() -> Any:
    """The PyAV module; DependencyError with the fix where it is not installed."""
    try:
        import av
    except ModuleNotFoundError as error:
        from podium.core.errors import DependencyError

        raise DependencyError("video work needs PyAV", fix="pip install 'podium[wmeval]'") from error
    return av


def probe(path: Path) -> Probe:
    """Open ``path`` and count its decodable frames; ``MediaError`` if it has no decodable video."""
    av = pyav()
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise MediaError("no video stream")
            stream = container.streams.video[0]
            frames = sum(1 for _ in container.decode(stream))
            codec = stream.codec_context.name
            width, height = stream.codec_context.width, stream.codec_context.height
            rate = stream.average_rate or stream.guessed_rate
    except (av.FFmpegError, OSError, ValueError) as error:
        raise MediaError(f"FFmpeg cannot decode it: {error}") from error
    if frames == 0:
        raise MediaError("no decodable frame")
    fps = float(rate) if rate else float(DEFAULT_FPS)
    return Probe(codec, width, height, round(fps, 3), frames, round(frames / fps, 3))


def frame_rate(path: Path) -> float | None:
    """The frame rate ``path``'s header declares (nothing decoded), or None where it has no plausible one."""
    av = pyav()
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                return None
            stream = container.streams.video[0]
            rate = stream.average_rate or stream.guessed_rate
    except (av.FFmpegError, OSError, ValueError):
        return None
    return float(rate) if rate and 0 < float(rate) <= MAX_FPS else None


def _source_rate(stream: Any) -> Fraction:
    rate = stream.average_rate or stream.guessed_rate
    return Fraction(rate).limit_denominator(1001) if rate and 0 < float(rate) <= MAX_FPS else Fraction(DEFAULT_FPS)


SEI = 6  # the H.264 NAL unit type of supplemental enhancement information: user data, encoder strings, timing
PUBLISHED_MP4 = {"movflags": "+faststart", "fflags": "+bitexact"}  # moov first; no muxer version, no creation time


def _publish(made: Path, target: Path) -> None:
    """Write the video ``made`` to ``target`` as annotators receive it, then remove ``made``.

    Every served video is our own encode, and this copy takes out what is not a picture: x264's SEI (its version
    and every setting, H.264 NAL type 6), container and stream metadata, the muxer version and the creation time
    (``+bitexact``). MP4 needs no SEI to play (it has its own timing), and ``moov`` comes first so that playback
    starts before the file has arrived.
    """
    av = pyav()
    clean = target.with_name(target.name + ".clean")
    try:
        with av.open(str(made)) as source, av.open(str(clean), "w", format="mp4", options=PUBLISHED_MP4) as output:
            stream = source.streams.video[0]
            copy = output.add_stream_from_template(stream)
            strip = av.bitstream.BitStreamFilterContext(f"filter_units=remove_types={SEI}", stream, copy)
            for packet in source.demux(stream):
                for kept in strip.filter(packet if packet.size else None):  # the empty last packet flushes
                    kept.stream = copy
                    output.mux(kept)
    except av.FFmpegError as error:
        clean.unlink(missing_ok=True)
        made.unlink(missing_ok=True)
        raise MediaError(f"FFmpeg cannot write it: {error}") from error
    made.unlink()
    clean.replace(target)


def _even(n: int) -> int:
    return max(2, n - n % 2)  # yuv420p needs even dimensions


def _fit(graph: Any, box: tuple[int, int, int, int], profile: ServedProfile) -> tuple[Any, Any]:
    """The filters that put a picture into ``box`` of the profile's frame: (first, last) of the chain.

    Scaled (area averaging, one thread), converted to yuv420p, padded with black, square samples.
    """
    x, y, w, h = box
    chain = [
        graph.add("scale", f"{w}:{h}:flags=area:threads=1"),
        graph.add("format", "yuv420p"),
        graph.add("pad", f"{profile.width}:{profile.height}:{x}:{y}:black"),
        graph.add("setsar", "1"),
    ]
    for first, then in zip(chain, chain[1:], strict=False):
        first.link_to(then)
    return chain[0], chain[-1]


class _ServedWriter:
    """The served encoder: frames in the profile, each shown until a given frame number, into an MP4."""

    def __init__(self, output: Any, profile: ServedProfile) -> None:
        self.output, self.fps, self.frames = output, profile.fps, 0
        self.last: Any = None
        self.encoder = output.add_stream("libx264", rate=profile.fps, options=profile.x264_options())
        self.encoder.width, self.encoder.height, self.encoder.pix_fmt = profile.width, profile.height, "yuv420p"

    def show(self, frame: Any, until: int) -> None:
        """Encode ``frame`` as the served frames up to ``until`` (once at least: no frame is ever dropped)."""
        av = pyav()
        frame.pict_type = av.video.frame.PictureType.NONE  # the source's frame types are not ours
        for number in range(self.frames, max(until, self.frames + 1)):
            frame.pts, frame.time_base = number, Fraction(1, self.fps)
            self.output.mux(self.encoder.encode(frame))
            self.frames = number + 1
        self.last = frame

    def finish(self) -> None:
        if self.last is None:
            raise MediaError("no decodable frame")
        self.output.mux(self.encoder.encode(None))


def transcode(source: Path, target: Path, last_frame: Path, profile: ServedProfile) -> tuple[Probe, Probe]:
    """Re-encode ``source`` into ``profile`` at ``target`` and save its last frame as served; probes of both.

    One pass, frame by frame: each decoded frame goes through the fitting filters and is encoded at once, so
    memory stays flat for long videos. Frame ``i`` is shown from ``i / r`` for ``1 / r`` seconds, ``r`` the
    source's average rate (which is what makes variable-rate files play evenly): at the profile's rate, which is
    at least ``r``, each frame is repeated once or more and none is dropped. A source faster than the profile is
    not served (``IssueKind.TOO_FAST``): serving it would drop frames.
    """
    av = pyav()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        with av.open(str(source)) as container:
            if not container.streams.video:
                raise MediaError("no video stream")
            stream = container.streams.video[0]
            stream.codec_context.thread_count = 1
            rate = _source_rate(stream)
            if not profile.fits(float(rate)):
                raise _TooFast(float(rate), profile.fps)
            codec = stream.codec_context.name
            width, height = stream.codec_context.width, stream.codec_context.height
            graph = av.filter.Graph()
            feed = graph.add_buffer(template=stream)
            box = profile.box(width, height)
            first, last = _fit(graph, box, profile)
            sink = graph.add("buffersink")
            feed.link_to(first)
            last.link_to(sink)
            graph.configure()
            frames = 0
            with av.open(str(partial), mode="w", format="mp4") as output:
                writer = _ServedWriter(output, profile)
                for frame in container.decode(stream):
                    feed.push(frame)
                    frames += 1
                    writer.show(sink.pull(), round(frames * profile.fps / rate))
                writer.finish()
    except (av.FFmpegError, OSError, ValueError) as error:
        partial.unlink(missing_ok=True)
        raise MediaError(f"FFmpeg cannot decode it: {error}") from error
    except MediaError:
        partial.unlink(missing_ok=True)
        raise
    _publish(partial, target)
    last_frame.parent.mkdir(parents=True, exist_ok=True)
    writer.last.to_image().save(last_frame)
    original = Probe(codec, width, height, round(float(rate), 3), frames, round(frames / float(rate), 3))
    served = writer.frames
    made = Probe("h264", profile.width, profile.height, profile.fps, served, round(served / profile.fps, 3), box)
    return original, made


class _TooFast(MediaError):
    def __init__(self, fps: float, served: int) -> None:
        super().__init__(
            f"its {fps:g} fps is above the served {served} fps (serving it would drop frames): send it at "
            f"{served} fps or less, or ingest the GT with --served-fps {math.ceil(fps)} before any team"
        )


def transcode_job(job: TranscodeJob) -> TranscodeResult:
    """``transcode`` as a result: undecodable (or too fast), an unplayable result with the reason."""
    try:
        original, served = transcode(job.source, job.target, job.last_frame, job.profile)
    except _TooFast as error:
        return TranscodeResult(False, str(error), issue=IssueKind.TOO_FAST)
    except MediaError as error:
        return TranscodeResult(
            False, str(error).replace(f"'{job.source}'", "the file")
        )  # the store's path says nothing
    return TranscodeResult(True, "", original, served, "transcoded")


@dataclass(frozen=True, slots=True)
class StripJob:
    """Three camera views of one GT episode to lay side by side, served in ``profile``."""

    views: tuple[Path, ...]
    target: Path
    last_frame: Path
    profile: ServedProfile


def compose_strip(job: StripJob) -> TranscodeResult:
    """The views side by side at the profile's height, fitted into it (a view that ends first holds its last frame).

    FFmpeg's own filters do the work (``scale`` with area averaging, ``hstack``, the fitting filters, then ``fps``
    at the profile's rate, which repeats frames only: cam_high, the clock, may not be faster), so no frame passes
    through Python arrays: 35% less CPU than stacking planes in NumPy. The views are aligned by time, not by frame
    number, and fed one frame each in turn, so memory stays flat however long the recordings are. The decoders
    and scalers run on one thread each (the ingest's pool fills the cores; 11% less CPU per strip).
    """
    av = pyav()
    profile = job.profile
    partial = job.target.with_name(job.target.name + ".part")
    try:
        with ExitStack() as stack:
            containers = [stack.enter_context(av.open(str(view))) for view in job.views]
            if not all(c.streams.video for c in containers):
                raise MediaError("a view has no video stream")
            streams = [c.streams.video[0] for c in containers]
            for s in streams:
                s.codec_context.thread_count = 1
            rate = _source_rate(streams[0])
            if not profile.fits(float(rate)):
                raise _TooFast(float(rate), profile.fps)
            height = profile.height
            widths = [_even(round(s.codec_context.width * height / s.codec_context.height)) for s in streams]
            graph = av.filter.Graph()
            sources = [graph.add_buffer(template=s) for s in streams]
            stacked = graph.add("hstack", f"inputs={len(streams)}")
            for index, (source, width) in enumerate(zip(sources, widths, strict=True)):
                scale = graph.add("scale", f"{width}:{height}:flags=area:threads=1")
                pixels = graph.add("format", "yuv420p")
                source.link_to(scale)
                scale.link_to(pixels)
                pixels.link_to(stacked, 0, index)
            box = profile.box(sum(widths), height)
            first, fitted = _fit(graph, box, profile)
            steady = graph.add("fps", str(profile.fps))
            sink = graph.add("buffersink")
            stacked.link_to(first)
            fitted.link_to(steady)
            steady.link_to(sink)
            graph.configure()
            decoders = [c.decode(s) for c, s in zip(containers, streams, strict=True)]
            job.target.parent.mkdir(parents=True, exist_ok=True)
            with av.open(str(partial), mode="w", format="mp4") as output:
                writer = _ServedWriter(output, profile)
                live = [True] * len(decoders)
                while True:
                    for index, decoder in enumerate(decoders):
                        if live[index]:
                            frame = next(decoder, None)
                            live[index] = frame is not None
                            sources[index].push(frame)  # None: this view has ended
                    while True:
                        try:
                            strip = sink.pull()
                        except (av.BlockingIOError, av.EOFError):
                            break
                        writer.show(strip, writer.frames + 1)  # the fps filter made the rate: once each
                    if not any(live):
                        break
                writer.finish()
    except (av.FFmpegError, OSError, ValueError, MediaError) as error:
        partial.unlink(missing_ok=True)
        reason = str(error) if isinstance(error, MediaError) else f"FFmpeg cannot decode it: {error}"
        return TranscodeResult(
            False, reason, issue=IssueKind.TOO_FAST if isinstance(error, _TooFast) else IssueKind.UNDECODABLE
        )
    _publish(partial, job.target)
    job.last_frame.parent.mkdir(parents=True, exist_ok=True)
    writer.last.to_image().save(job.last_frame)
    out = Probe("h264", profile.width, profile.height, profile.fps, writer.frames,
                round(writer.frames / profile.fps, 3), box)  # fmt: skip
    return TranscodeResult(True, "", out, out, "composed")
