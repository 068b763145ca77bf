#pragma once
// Generation settings: mode, size, timing, sampler, seed policy, sound, conditioning and control inputs, presets.
// Produces the request JSON the engine reads (the reference sample JSON fields) and restores it for recall.
#include <QStringList>
#include <QWidget>

#include "Background.h"
#include "worldstudio/core/pyjson.h"

class AdapterList;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QFormLayout;
class RequestFields;

class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    QString mode() const;
    void setMode(const QString& mode);
    // The request without prompt and negative prompt.
    ws::ojson request() const;
    // Before queueing: the "random" policy draws a new seed (shown in the seed box, so it is what gets recorded).
    void drawSeed();
    // Applies a request (recall, presets); unknown or missing fields keep their current values.
    void applyRequest(const ws::ojson& request);
    // After a job was queued: "increment" moves the seed on by one.
    void advanceSeed();
    // Seed policy: "fixed", "random" (a new seed per job, the default) or "increment".
    QString seedPolicy() const;
    void setSeedPolicy(const QString& policy);
    // Whether the loaded model makes sound: sound is on by default and stays as the user sets it (across modes and
    // models that make sound); without a sound tokenizer it is off and not offered.
    void setModelCanMakeSound(bool can);
    // Whether the loaded model keeps a guide (guide/, the weaker tower autoguidance steers away from): without one the
    // Autoguidance row is not shown and requests leave the field out.
    void setModelHasGuide(bool has);
    // A distilled checkpoint's fixed step count (0: none): steps, guidance and shift show its values, locked, with
    // a line saying why; recalled requests do not unlock them.
    void setFixedSampling(int steps);
    int fixedSampling() const { return fixedSteps_; }
    // The modes the loaded model's recipe is made for (empty: all) and what to say when another mode is chosen
    // (Edge's 2026-08-25 recipe is image to video only; the other modes still run).
    void setRecipeModes(const QStringList& modes, const QString& note);
    // The adapters the loaded model carries (Model::info()["adapters"]): a job uses them unless it names its own,
    // which the engine applies on the fly.
    void setModelAdapters(const ws::ojson& adapters);
    QCheckBox* modelAdaptersBox() const { return useModelAdapters_; }  // checked: the job uses the model's adapters
    AdapterList* jobAdapters() const { return jobAdapters_; }
    QString templateMode() const;  // the upsampler template for the mode: t2v, t2i, i2v or v2v
    double durationSeconds() const;
    QString sizeText() const;

    QComboBox* modeBox() const { return mode_; }
    QComboBox* presetBox() const { return preset_; }
    QSpinBox* framesBox() const { return frames_; }
    QSpinBox* seedBox() const { return seed_; }
    QComboBox* seedPolicyBox() const { return seedPolicy_; }
    QSpinBox* stepsBox() const { return steps_; }
    QSpinBox* chunksBox() const { return chunks_; }  // a long video: chunks of Frames each, continued from one another
    QSpinBox* overlapBox() const { return overlap_; }       // latent frames each chunk carries over
    QComboBox* promptingBox() const { return prompting_; }  // "framework" or "diffusers"
    QComboBox* tierBox() const { return tier_; }            // 256p, 480p, 720p, then "custom" (width and height boxes)
    QSpinBox* widthBox() const { return width_; }
    QSpinBox* heightBox() const { return height_; }
    QComboBox* aspectBox() const { return aspect_; }
    QCheckBox* soundBox() const { return sound_; }
    QCheckBox* jsonCaptionBox() const { return jsonCaption_; }  // a plain prompt sent as {"temporal_caption": ...}
    QCheckBox* stepCacheBox() const { return stepCache_; }      // the framework's step cache (SeaCache)
    QDoubleSpinBox* stepCacheThresholdBox() const { return stepCacheThreshold_; }
    QSpinBox* vaeBudgetBox() const { return vaeBudget_; }  // MiB for the VAE; 0 = the model's budget
    QLineEdit* conditioningEdit() const { return vision_; }
    QLineEdit* lastFrameEdit() const { return lastFrame_; }  // image2video: the picture pinned at the last latent frame
    QLineEdit* controlEdit() const { return control_; }

    // The loaded model's generation defaults (Model::info()["generation_defaults"]: {"*": {...}, MODE: {...}}):
    // they sit over the mode's defaults and the built-in presets (Pico's 64x64, 33 frames, 16 fps); a user preset
    // still has the last word. Re-applies the current preset.
    void setModelDefaults(const ws::ojson& defaults);
    // The model's defaults for `mode` ("*" merged under the mode's own entry); empty without a model that names any.
    ws::ojson modelDefaultsFor(const QString& mode) const;

    // Saves the current settings as a named user preset; false when it cannot be written.
    bool savePreset(const QString& name);
    void reloadPresets();
    void applyPreset(int index);  // 0: the mode's defaults, 1: quick draft, then the user's presets
    // Computes an edge or blur control video from `source` on a pool thread; emits controlDerived or message.
    void deriveControlFrom(const QString& source);

Q_SIGNALS:
    void modeChanged(const QString& mode);
    void changed();
    // Around a preset the user picks (not the defaults a mode change applies): the caller records one undo step.
    void aboutToApplyPreset();
    void presetApplied(const QString& name);
    void controlDerived(const QString& path);
    void message(const QString& text);

private:
    void addSizeRows();
    void addSamplingRows();
    void addInputRows();
    void connectRows();
    void updateDerived();
    void updateVisibility();
    // Whether the form shows the schema field `field` for the current mode and model (and so puts it in requests).
    bool offers(const std::string& field) const;
    void deriveControl();
    void lockFixedSampling();
    QComboBox *mode_, *preset_, *tier_, *aspect_, *seedPolicy_, *controlType_;
    QSpinBox *frames_, *seed_, *width_, *height_, *steps_ = nullptr, *chunks_, *overlap_;
    QDoubleSpinBox* fps_ = nullptr;
    QComboBox* prompting_;
    QWidget* lengthRow_;
    QDoubleSpinBox *guidance_, *shift_, *controlWeight_;
    QCheckBox *sound_, *jsonCaption_ = nullptr, *useModelAdapters_, *stepCache_;
    RequestFields* fields_;  // the rows the request schema declares
    QDoubleSpinBox* stepCacheThreshold_;
    QSpinBox* vaeBudget_;
    AdapterList* jobAdapters_;
    ws::ojson modelAdapters_ = ws::ojson::array();  // [{"path", "strength"}]
    QLineEdit *vision_, *action_, *control_, *lastFrame_;
    QLabel *sizeLabel_, *durationLabel_, *controlPreview_, *fixedNote_, *recipeNote_, *lengthLabel_ = nullptr;
    QStringList recipeModes_;
    int fixedSteps_ = 0;
    BackgroundLane controlLane_;  // control-map derivations: the latest one's result fills the field
    QFormLayout* form_;
    QWidget *visionRow_, *actionRow_, *controlRow_, *lastFrameRow_;
    bool applying_ = false;
    bool cappingOverlap_ = false;
    int overlapWanted_ = 2;
    bool canMakeSound_ = true;
    bool hasGuide_ = true;
    ws::ojson modelDefaults_ = ws::ojson::object();
};
