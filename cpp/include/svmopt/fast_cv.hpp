// Fast v-fold cross-validation of the fixed-size LS-SVM (paper 002, Section 6.1, Algorithm 3,
// eqs. (19)-(21)), realized with per-fold statistics G_u = Phi_u^T Phi_u and
// t_u = Phi_u^T Y_u, fold v solves (G - G_v + R/gamma) theta_v = c - t_v by Cholesky, where
// R = I (the paper's (7), bias penalized) or diag(1, ..., 1, 0) (bias not penalized).
#pragma once

#include <cstdint>
#include <vector>

#include "svmopt/common.hpp"

namespace svmopt {

// G: v matrices p x p (symmetric); t: v matrices p x k. Returns theta: v matrices p x k.
// Throws std::runtime_error when a fold system is not positive definite.
std::vector<Eigen::MatrixXd> fast_cv_solve(const std::vector<Eigen::MatrixXd>& G, const std::vector<Eigen::MatrixXd>& t,
                                           double gamma, bool regularize_bias, int n_threads = 0);

// The same with the sums S = sum_u G_u and c = sum_u t_u given; only the lower triangles of S and G_u are read.
std::vector<Eigen::MatrixXd> fold_ridge_solves(const std::vector<Eigen::MatrixXd>& G,
                                               const std::vector<Eigen::MatrixXd>& t, const Eigen::MatrixXd& S,
                                               const Eigen::MatrixXd& c, double gamma, bool regularize_bias,
                                               int n_threads = 0);

// Ridge solve (7) of the whole data: (sum_u G_u + R/gamma) theta = sum_u t_u.
Eigen::MatrixXd ridge_solve(const Eigen::MatrixXd& G, const Eigen::MatrixXd& t, double gamma, bool regularize_bias);

// out (n x k) row i = Phi_e[i] theta_{fold[i]}: the CV predictions of every row with its own fold model.
void fold_predict(const MatrixView& Phi, const std::int32_t* folds, const std::vector<Eigen::MatrixXd>& theta,
                  RowMatrixMap out, int n_threads = 0);

// The same CV predictions by the holdout identity (Woodbury), without a factorization per fold: with
// A = G + R/gamma of the whole data (G, t: sums over all folds) and theta = A^{-1} t,
//   Y_u - f_u = (I - H_uu)^{-1} (Y_u - Phi_u theta),   H_uu = Phi_u A^{-1} Phi_u^T = Z_u^T Z_u,  Z_u = L^{-1} Phi_u^T.
// Cost p^3/3 + n p^2 + sum_u n_u^2 (p + n_u/3) instead of v p^3/3: cheaper when the folds are small next to p
// (many folds, or n not much larger than p). Phi: n x p (all rows, any order), Y: n x k, folds: n ids in
// [0, n_folds). Throws std::runtime_error when A or a fold's I - H_uu (i.e. its A_u) is not positive definite.
void fast_cv_holdout(const MatrixView& Phi, const MatrixView& Y, const std::int32_t* folds, Index n_folds,
                     const Eigen::MatrixXd& G, const Eigen::MatrixXd& t, double gamma, bool regularize_bias,
                     RowMatrixMap out, int n_threads = 0);

}  // namespace svmopt
