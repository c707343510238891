/* Welch PSD, interpolated peak and de Haan SNR on FFTW (single precision).
 *
 * Everything a call needs is made in ccore_spectrum_create: the r2c plan on
 * its own fftwf_malloc'ed buffers (executed in place of those buffers, so no
 * new-array alignment rules to meet), the Hann window and a double
 * accumulator for the periodogram average. The analysis calls only read the
 * handle's config and write its buffers: no allocation, no shared state. */
#include "ccore/spectrum.h"

#include <errno.h>
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* FFTW's planner shares wisdom and twiddle tables between plans and is not
 * thread-safe: plan creation and destruction take this lock. It guards
 * FFTW's global state, not ours; fftwf_execute needs no lock. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

/* Largest FFT we plan: far beyond any trace, and keeps the sizes in uint32_t. */
#define MAX_FFT_LENGTH (1u << 28)

/* Band edges within this fraction of a bin of a bin's frequency include it,
 * so 0.7f or 4.0f that land on a bin up to float rounding count it. */
#define BIN_EPSILON 1e-4

struct ccore_spectrum {
    float sample_rate;
    uint32_t segment_length;
    uint32_t fft_length;
    uint32_t step;       /* samples between segment starts */
    uint32_t bins;       /* fft_length / 2 + 1 */
    double bin_hz;       /* sample_rate / fft_length */
    double scale;        /* 1 / (sample_rate * sum(w^2)): one-sided density */
    float *window;       /* periodic Hann, segment_length */
    double *accum;       /* periodogram sum, bins */
    float *in;           /* fft_length, fftwf_malloc: plan input */
    fftwf_complex *out;  /* bins, fftwf_malloc: plan output */
    fftwf_plan plan;
};

static void free_buffers(ccore_spectrum *s) {
    free(s->window);
    free(s->accum);
    fftwf_free(s->in);
    fftwf_free(s->out);
}

int ccore_spectrum_create(const ccore_spectrum_config *config, ccore_spectrum **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    if (!config) return -EINVAL;
    float fs = config->sample_rate_hz, overlap = config->overlap;
    uint32_t seg = config->segment_length;
    if (!(isfinite(fs) && fs > 0)) return -EINVAL;
    if (!(isfinite(overlap) && overlap >= 0 && overlap < 1)) return -EINVAL;
    if (seg < 8 || seg > MAX_FFT_LENGTH) return -EINVAL;
    uint32_t n = config->fft_length;
    if (n == 0) {
        /* Default: 4x zero padding, enough for the parabolic peak to be near-exact. */
        uint64_t want = 4ull * seg, p = 1;
        while (p < want) p <<= 1;
        if (p > MAX_FFT_LENGTH) return -EINVAL;
        n = (uint32_t)p;
    } else if ((n & (n - 1)) != 0 || n < seg || n > MAX_FFT_LENGTH) {
        return -EINVAL;
    }

    ccore_spectrum *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->sample_rate = fs;
    s->segment_length = seg;
    s->fft_length = n;
    s->bins = n / 2 + 1;
    s->bin_hz = (double)fs / n;
    long step = lround((double)seg * (1.0 - (double)overlap));
    s->step = step < 1 ? 1 : (uint32_t)step;

    s->window = malloc(sizeof(float) * seg);
    s->accum = malloc(sizeof(double) * s->bins);
    s->in = fftwf_malloc(sizeof(float) * n);
    s->out = fftwf_malloc(sizeof(fftwf_complex) * s->bins);
    if (!s->window || !s->accum || !s->in || !s->out) {
        free_buffers(s);
        free(s);
        return -ENOMEM;
    }

    /* Periodic Hann (the DFT-even form spectral estimators use): its
     * segment_length-point DFT has exactly three non-zero bins. */
    double sum_w2 = 0;
    for (uint32_t i = 0; i < seg; i++) {
        double w = 0.5 - 0.5 * cos(2.0 * M_PI * i / seg);
        s->window[i] = (float)w;
        sum_w2 += (double)s->window[i] * s->window[i];
    }
    s->scale = 1.0 / ((double)fs * sum_w2);

    pthread_mutex_lock(&planner_lock);
    s->plan = fftwf_plan_dft_r2c_1d((int)n, s->in, s->out, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planner_lock);
    if (!s->plan) {
        free_buffers(s);
        free(s);
        return -ENOMEM;
    }
    *out = s;
    return 0;
}

void ccore_spectrum_destroy(ccore_spectrum *spectrum) {
    if (!spectrum) return;
    pthread_mutex_lock(&planner_lock);
    fftwf_destroy_plan(spectrum->plan);
    pthread_mutex_unlock(&planner_lock);
    free_buffers(spectrum);
    free(spectrum);
}

uint32_t ccore_spectrum_bin_count(const ccore_spectrum *spectrum) { return spectrum ? spectrum->bins : 0; }

float ccore_spectrum_bin_hz(const ccore_spectrum *spectrum) { return spectrum ? (float)spectrum->bin_hz : NAN; }

int ccore_spectrum_welch(ccore_spectrum *s, const float *signal, uint32_t count, float *psd, uint32_t psd_count) {
    if (!s || !signal || !psd || count < s->segment_length || psd_count < s->bins) return -EINVAL;
    const uint32_t seg = s->segment_length, n = s->fft_length, bins = s->bins;
    const uint32_t segments = (count - seg) / s->step + 1;
    memset(s->accum, 0, sizeof(double) * bins);

    for (uint32_t k = 0; k < segments; k++) {
        const float *x = signal + (size_t)k * s->step;
        double mean = 0;
        for (uint32_t i = 0; i < seg; i++) mean += x[i];
        mean /= seg;
        for (uint32_t i = 0; i < seg; i++) s->in[i] = (float)((x[i] - mean) * s->window[i]);
        /* Rewritten every time: r2c plans may use the input as scratch. */
        memset(s->in + seg, 0, sizeof(float) * (n - seg));
        fftwf_execute(s->plan);
        for (uint32_t b = 0; b < bins; b++) {
            double re = s->out[b][0], im = s->out[b][1];
            s->accum[b] += re * re + im * im;
        }
    }

    /* One-sided: every bin but DC and Nyquist also carries its negative twin. */
    const double scale = s->scale / segments;
    for (uint32_t b = 0; b < bins; b++) {
        double twice = (b == 0 || b == bins - 1) ? 1.0 : 2.0;
        psd[b] = (float)(s->accum[b] * scale * twice);
    }
    return 0;
}

/* Bins whose frequency lies in [low_hz, high_hz], clipped to the PSD; false if none. */
static bool band_bins(const ccore_spectrum *s, float low_hz, float high_hz, uint32_t *first, uint32_t *last) {
    if (!(isfinite(low_hz) && isfinite(high_hz)) || low_hz > high_hz || high_hz < 0) return false;
    double lo = ceil(low_hz / s->bin_hz - BIN_EPSILON);
    double hi = floor(high_hz / s->bin_hz + BIN_EPSILON);
    if (lo < 0) lo = 0;
    if (hi > s->bins - 1) hi = s->bins - 1;
    if (lo > hi) return false;
    *first = (uint32_t)lo;
    *last = (uint32_t)hi;
    return true;
}

int ccore_spectrum_peak(const ccore_spectrum *s, const float *psd, float low_hz, float high_hz,
                        ccore_spectral_peak *out) {
    uint32_t first, last;
    if (!s || !psd || !out || !band_bins(s, low_hz, high_hz, &first, &last)) return -EINVAL;
    uint32_t best = first;
    for (uint32_t b = first + 1; b <= last; b++)
        if (psd[b] > psd[best]) best = b;
    if (!(psd[best] > 0)) return -ENODATA;

    /* A Hann main lobe is close to a Gaussian, whose log is a parabola: fit
     * one through the peak and its neighbours. Only a true local maximum with
     * positive neighbours is refined; a band edge sitting on a slope is not. */
    double offset = 0;
    if (best > 0 && best + 1 < s->bins && psd[best - 1] > 0 && psd[best + 1] > 0 && psd[best] >= psd[best - 1] &&
        psd[best] >= psd[best + 1]) {
        double a = log(psd[best - 1]), b = log(psd[best]), c = log(psd[best + 1]);
        double curvature = a - 2 * b + c;
        if (curvature < 0) {
            offset = 0.5 * (a - c) / curvature;
            if (offset > 0.5) offset = 0.5;
            if (offset < -0.5) offset = -0.5;
        }
    }
    out->frequency_hz = (float)((best + offset) * s->bin_hz);
    out->power = psd[best];
    out->bin = best;
    out->reserved = 0;
    return 0;
}

float ccore_spectrum_snr_db(const ccore_spectrum *s, const float *psd, float f0_hz, float low_hz, float high_hz) {
    uint32_t first, last;
    if (!s || !psd || !(isfinite(f0_hz) && f0_hz > 0) || !band_bins(s, low_hz, high_hz, &first, &last)) return NAN;
    /* de Haan & Jeanne (2013): ±0.1 Hz around f0 and ±0.2 Hz around 2*f0 are
     * the pulse; everything else in the band is noise. */
    const double tol = BIN_EPSILON * s->bin_hz;
    double signal = 0, noise = 0;
    for (uint32_t b = first; b <= last; b++) {
        double f = b * s->bin_hz;
        if (fabs(f - f0_hz) <= 0.1 + tol || fabs(f - 2.0 * f0_hz) <= 0.2 + tol)
            signal += psd[b];
        else
            noise += psd[b];
    }
    if (!(signal > 0)) return -INFINITY;
    if (!(noise > 0)) return INFINITY;
    return (float)(10.0 * log10(signal / noise));
}
